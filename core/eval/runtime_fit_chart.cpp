#include "eval/runtime_fit_chart.h"

#include "layout/gantt_layout.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

namespace stagecraft {

Timeline interleaveRows(const RunTimelines& run) {
    Timeline out;
    out.shape = run.predicted.shape;
    const int devices = std::max(run.measured.shape.devices, run.predicted.shape.devices);
    out.shape.devices = 2 * devices;
    out.shape.schedule = "measured and predicted";
    out.origin = "predicted";
    // Compute events first, device by device (the timeline's order), then the transfers.
    for (const Lane lane : {Lane::Compute, Lane::Comm})
        for (int d = 0; d < devices; ++d)
            for (const auto& [from, row] :
                 {std::pair{&run.measured, 2 * d}, std::pair{&run.predicted, 2 * d + 1}})
                for (const TimelineEvent& e : from->events)
                    if (e.lane == lane && e.device == d) {
                        TimelineEvent moved = e;
                        moved.device = row;
                        if (moved.peer >= 0) moved.peer = 2 * moved.peer + (row % 2);
                        out.events.push_back(moved);
                    }
    return out;
}

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
        panel.subtitle = "torch " + p.runtime + " \u00b7 " + keyFigures(p.timeline);
        panels.push_back(panel);
    }
    return layoutGantt(panels, layoutOptions(settings, widthPt));
}

Scene buildRunComparisonScene(const RunTimelines& run, const std::string& name, const ChartSettings& settings,
                              double widthPt) {
    const Timeline rows = interleaveRows(run);
    std::array<ChartPanel, 1> panels;
    panels[0].timeline = &rows;
    panels[0].title = name;
    panels[0].subtitle = "measured " + keyFigures(run.measured) + " \u00b7 predicted (" +
                         std::string(runtimeModelName(RuntimeModel::TorchGloo)) + " fit) " +
                         keyFigures(run.predicted);
    for (int d = 0; d < rows.shape.devices / 2; ++d) {
        panels[0].rowLabels.push_back("D" + std::to_string(d) + " measured");
        panels[0].rowLabels.push_back("predicted");
    }
    return layoutGantt(panels, layoutOptions(settings, widthPt));
}

} // namespace stagecraft
