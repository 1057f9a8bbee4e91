#include "eval/runtime_fit_chart.h"

#include "layout/gantt_layout.h"

#include <array>

namespace stagecraft {

Scene buildRunComparisonScene(const RunTimelines& run, const std::string& name, const ChartSettings& settings,
                              double widthPt) {
    std::array<ChartPanel, 2> panels;
    // Short bold titles; the run and the model go into the muted line beside them.
    panels[0].timeline = &run.measured;
    panels[0].title = "measured";
    panels[0].subtitle = name + " \u00b7 " + timelineSummary(run.measured, TimeUnit::Microseconds);
    panels[1].timeline = &run.predicted;
    panels[1].title = "predicted";
    panels[1].subtitle = std::string(runtimeModelName(RuntimeModel::TorchGloo)) + " fit \u00b7 " +
                         timelineSummary(run.predicted, TimeUnit::Microseconds);
    ChartOptions options;
    options.palette = settings.palette;
    options.widthPt = widthPt;
    options.showComm = settings.showComm;
    options.legend = settings.legend;
    options.axis = settings.axis;
    options.labels = settings.labels;
    options.title = settings.title;
    options.subtitle = settings.subtitle;
    options.tooltips = settings.tooltips;
    return layoutGantt(panels, options);
}

} // namespace stagecraft
