#pragma once
// Helpers shared by the GUI tests: an isolated settings/app-data location and small fixtures.

#include "eval/project_simulation.h"
#include "generators/registry.h"
#include "gui/main_window.h"
#include "io/chrome_trace.h"
#include "project/project.h"

#include <QCoreApplication>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace stagecraft::gui::test {

/// Settings and autosaves go to the test locations, never the user's.
inline void isolateSettings() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("StagecraftTests"));
    QCoreApplication::setApplicationName(QStringLiteral("stagecraft-tests"));
}

/// A window that asks nothing on start or close and autosaves under `dir`.
inline MainWindowOptions quietWindowOptions(const QTemporaryDir& dir) {
    MainWindowOptions options;
    options.offerRecovery = false;
    options.confirmClose = false;
    options.restoreGeometry = false;
    options.autosaveDirectory = dir.filePath(QStringLiteral("autosave"));
    return options;
}

/// A "measured" timeline of `schedule` under `project`: the prediction with every compute op
/// `stretch` times longer and later ops shifted accordingly (a slower machine).
inline Timeline measuredTimeline(const Project& project, const std::string& schedule, double stretch) {
    Prediction p = predict(project, generateSchedule(schedule, scheduleParams(project)));
    Timeline t = p.timeline;
    t.origin = "measured";
    for (TimelineEvent& e : t.events) {
        e.start *= stretch;
        e.end *= stretch;
    }
    return t;
}

} // namespace stagecraft::gui::test
