#include "gui/models/settings.h"

#include "gui/models/constants.h"

#include <QSettings>

namespace stagecraft::gui {

Settings& Settings::instance() {
    static Settings settings;
    return settings;
}

Settings::Settings() {
    QSettings s;
    m_palette = s.value(constants::kPaletteKey, QStringLiteral("paper")).toString();
    m_showComm = s.value(constants::kShowCommKey, false).toBool();
    m_measuredRows = s.value(constants::kMeasuredRowsKey, QStringLiteral("overlaid")).toString();
    m_autosaveSeconds = std::clamp(s.value(constants::kAutosaveSecondsKey, 30).toInt(), 5, 3600);
    m_recentFiles = s.value(constants::kRecentFilesKey).toStringList();
}

void Settings::save() const {
    QSettings s;
    s.setValue(constants::kPaletteKey, m_palette);
    s.setValue(constants::kShowCommKey, m_showComm);
    s.setValue(constants::kMeasuredRowsKey, m_measuredRows);
    s.setValue(constants::kAutosaveSecondsKey, m_autosaveSeconds);
    s.setValue(constants::kRecentFilesKey, m_recentFiles);
}

void Settings::setPalette(const QString& palette) {
    if (palette == m_palette) return;
    m_palette = palette;
    save();
    emit paletteChanged(palette);
}

void Settings::setShowComm(bool show) {
    if (show == m_showComm) return;
    m_showComm = show;
    save();
    emit showCommChanged(show);
}

void Settings::setMeasuredRows(const QString& rows) {
    if (rows == m_measuredRows) return;
    m_measuredRows = rows;
    save();
    emit measuredRowsChanged(rows);
}

void Settings::setAutosaveSeconds(int seconds) {
    seconds = std::clamp(seconds, 5, 3600);
    if (seconds == m_autosaveSeconds) return;
    m_autosaveSeconds = seconds;
    save();
    emit autosaveSecondsChanged(seconds);
}

void Settings::addRecentFile(const QString& path) {
    m_recentFiles.removeAll(path);
    m_recentFiles.prepend(path);
    while (m_recentFiles.size() > constants::kMaxRecentFiles) m_recentFiles.removeLast();
    save();
    emit recentFilesChanged(m_recentFiles);
}

void Settings::clearRecentFiles() {
    m_recentFiles.clear();
    save();
    emit recentFilesChanged(m_recentFiles);
}

} // namespace stagecraft::gui
