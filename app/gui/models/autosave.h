#pragma once
// Autosave and crash recovery. While a document has unsaved edits it is written every few
// seconds to AppDataLocation/autosave/<session>.stagecraft.json, next to a lock file held by this
// process. On start, autosaves whose lock is stale (their process died) are offered for recovery.
// A clean save or a normal exit removes this session's autosave.

#include <QLockFile>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <memory>

namespace stagecraft::gui {

class ProjectDocument;

class Autosave : public QObject {
    Q_OBJECT
  public:
    /// `directory` empty: AppDataLocation/autosave.
    Autosave(ProjectDocument* document, QString directory = {}, QObject* parent = nullptr);
    ~Autosave() override;

    QString directory() const { return m_directory; }
    QString sessionFile() const { return m_file; }
    void setInterval(int seconds);

    /// Write now when the document has unsaved edits; remove the file when it has none.
    void saveNow();
    /// Remove this session's autosave (after a save or on a normal exit).
    void discard();

    /// Autosaves of sessions that ended without cleaning up (crashed), newest first.
    QStringList orphans() const;
    /// Remove an orphan once it was recovered or declined.
    static void removeOrphan(const QString& file);
    /// Where an autosave keeps the path of the file its project was opened from or saved to, so
    /// that a recovered project keeps its name ("" in it: an untitled project).
    static QString originFileOf(const QString& autosaveFile);
    /// The project file an autosave was made from; "" for an untitled project.
    static QString originOf(const QString& autosaveFile);

  private:
    ProjectDocument* m_document;
    QString m_directory;
    QString m_file;
    std::unique_ptr<QLockFile> m_lock;
    QTimer m_timer;
};

} // namespace stagecraft::gui
