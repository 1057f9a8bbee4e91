#pragma once
// Preferences, persisted in QSettings in one place: getters, setters and change signals.

#include <QObject>
#include <QStringList>

namespace stagecraft::gui {

class Settings : public QObject {
    Q_OBJECT
  public:
    static Settings& instance();

    QString palette() const { return m_palette; }
    bool showComm() const { return m_showComm; }
    /// How a measured trace is drawn, by core's name (measuredRowsName): "overlaid" or
    /// "under-predicted".
    QString measuredRows() const { return m_measuredRows; }
    int autosaveSeconds() const { return m_autosaveSeconds; }
    QStringList recentFiles() const { return m_recentFiles; }

  public slots:
    void setPalette(const QString& palette);
    void setShowComm(bool show);
    void setMeasuredRows(const QString& rows);
    void setAutosaveSeconds(int seconds);
    /// Move `path` to the front of the recent files (at most kMaxRecentFiles).
    void addRecentFile(const QString& path);
    void clearRecentFiles();

  signals:
    void paletteChanged(const QString& palette);
    void showCommChanged(bool show);
    void measuredRowsChanged(const QString& rows);
    void autosaveSecondsChanged(int seconds);
    void recentFilesChanged(const QStringList& files);

  private:
    Settings();
    void save() const;

    QString m_palette;
    bool m_showComm = false;
    QString m_measuredRows;
    int m_autosaveSeconds = 30;
    QStringList m_recentFiles;
};

} // namespace stagecraft::gui
