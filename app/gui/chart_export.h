#pragma once
// Export of the chart: the same Scene the window shows (buildChartScene), laid out at the
// requested size, through the one renderer (render/scene_export.h). Used by the Export dialog
// and by `stagecraft --export` without a window.

#include "eval/chart_composition.h"
#include "eval/evaluation.h"
#include "render/scene_export.h"

#include <QString>
#include <QStringList>

namespace stagecraft::gui {

enum class SizeUnit { Millimetre, Point };

/// A length in points (1/72 inch).
double toPoints(double value, SizeUnit unit);

struct ExportRequest {
    QString path;
    render::ExportSettings file;
    ChartSettings chart;
    double widthPt = 500; ///< chart width; the height follows from the rows
    /// Draw every shown schedule, or only those `schedules` names (as the outcomes name them).
    bool allSchedules = true;
    QStringList schedules;
};

/// Build the scene and write the file. Throws stagecraft::Error: nothing to draw, bad size or
/// DPI, unwritable path.
void exportChart(const AnalysisResult& result, const ExportRequest& request);

} // namespace stagecraft::gui
