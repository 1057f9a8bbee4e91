#pragma once
// `stagecraft --export OUT.{svg,pdf,png,tex} [FILE] [--schedule a,b]`: simulate and export
// without showing a window (works under QT_QPA_PLATFORM=offscreen).

#include <QString>
#include <QStringList>

namespace stagecraft::gui {

struct HeadlessExport {
    QString output;        ///< OUT.svg / .pdf / .png / .tex
    QString input;         ///< project (.json) or schedule (.csv / .json) file; empty: default project
    QStringList schedules; ///< overrides the project's schedules when not empty
    QString trace;         ///< measured Chrome trace to draw over its schedule (optional)
    QString palette;       ///< empty: paper
    QString rows = QStringLiteral("overlaid"); ///< how the trace is drawn (core's measuredRowsName)
    double widthPt = 500;
    double dpi = 300;
};

/// Returns the exit status (0, 2 for bad input); messages go to stderr.
int runHeadlessExport(const HeadlessExport& job);

} // namespace stagecraft::gui
