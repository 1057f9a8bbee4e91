#include "gui/chart_export.h"

#include "error.h"

namespace stagecraft::gui {

double toPoints(double value, SizeUnit unit) {
    return unit == SizeUnit::Millimetre ? value * 72.0 / 25.4 : value;
}

void exportChart(const AnalysisResult& result, const ExportRequest& request) {
    if (result.outcomes.empty()) {
        std::string why = "no schedule to draw: check at least one schedule";
        if (!result.refusals.empty())
            why = "no schedule to draw: " + result.refusals.front().name + ": " +
                  result.refusals.front().message;
        throw ValidationError("export.empty", "schedules", why);
    }
    if (!(request.widthPt >= 72 && request.widthPt <= 14400))
        throw ValidationError("export.width", "width",
                              "width = " + std::to_string(request.widthPt) +
                                  " pt: must be in [72, 14400] pt (25.4 mm to 5.08 m)");
    const Scene scene = buildChartScene(result, request.chart, request.widthPt);
    render::exportScene(scene, request.path, request.file);
}

} // namespace stagecraft::gui
