#include "eval/runtime_fit_chart.h"

#include "error.h"
#include "layout/compared_rows.h"
#include "layout/gantt_layout.h"
#include "sim/overlay.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

namespace stagecraft {

namespace {

/// "223.9 ms, bubble 19.3%" of a timeline's compute events.
std::string keyFigures(const Timeline& t) {
    double makespan = 0, busy = 0;
    for (const TimelineEvent& e : t.events)
        if (e.lane == Lane::Compute) {
            makespan = std::max(makespan, e.end);
            busy += e.duration();
        }
    const int devices = std::max(1, t.shape.devices);
    const double bubble = makespan > 0 ? 100.0 * (1.0 - busy / (devices * makespan)) : 0.0;
    char text[96];
    std::snprintf(text, sizeof text, "%.1f ms, bubble %.1f%%", makespan / 1000.0, bubble);
    return text;
}

} // namespace

Scene buildPredictionsScene(const std::vector<SchedulePrediction>& predictions, const ChartSettings& settings,
                            double widthPt) {
    std::vector<ChartPanel> panels;
    for (const SchedulePrediction& p : predictions) {
        if (!p.refusal.empty()) continue;
        ChartPanel panel;
        panel.timeline = &p.timeline;
        panel.title = p.schedule;
        // Two pipes are not torch's: their programs are Stagecraft's lowering at torch's costs.
        const std::string runtime = p.runtime == "stagecraft" ? "Stagecraft lowering" : "torch " + p.runtime;
        panel.subtitle = runtime + " \u00b7 " + keyFigures(p.timeline);
        panels.push_back(panel);
    }
    return layoutGantt(panels, layoutOptions(settings, widthPt));
}

Scene buildRunComparisonScene(const RunTimelines& run, const std::string& name, const ChartSettings& settings,
                              double widthPt) {
    // Both timelines start at the iteration's start: matched for the tooltips, never shifted.
    OverlayReport matched;
    try {
        matched = compareTimelines(run.predicted, run.measured);
    } catch (const Error&) {
        matched = OverlayReport{}; // other ops: each box says its own side
    }
    matched.alignOffset = 0;
    const ComparedRows rows = compareRows(run.predicted, run.measured, matched);
    std::array<ChartPanel, 1> panels;
    panels[0].timeline = &rows.timeline;
    panels[0].compared = &rows;
    panels[0].title = name;
    panels[0].subtitle = "predicted (" + std::string(runtimeModelName(RuntimeModel::TorchGloo)) + " fit) " +
                         keyFigures(run.predicted) + " \u00b7 measured " + keyFigures(run.measured);
    return layoutGantt(panels, layoutOptions(settings, widthPt));
}

} // namespace stagecraft
