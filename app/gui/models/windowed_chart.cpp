#include "gui/models/windowed_chart.h"

#include "layout/chart_frame.h"

#include <utility>

namespace stagecraft::gui {

std::shared_ptr<WindowedChart> buildWindowedChart(AnalysisPtr result, const ChartSettings& settings) {
    auto w = std::make_shared<WindowedChart>();
    w->result = std::move(result);
    w->settings = settings;
    w->chart = composeChart(*w->result, settings);
    // Hover text comes from the events (GanttView::toolTipAt), not from strings on every bar.
    w->options = chartOptions(*w->result, settings, 500);
    w->options.tooltips = false;
    // A label shrunk for print is too small to read on screen.
    w->options.minLabelSize = kMinScreenLabelPt;
    w->content = scanChart(w->chart.panels, w->options);
    w->rows = ChartRows(w->chart.panels, w->content);
    return w;
}

} // namespace stagecraft::gui
