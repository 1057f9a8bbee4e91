#include "gui/models/chart_scene.h"

#include "layout/gantt_layout.h"

#include <unordered_map>

namespace stagecraft::gui {
namespace {

// Identity of an event for matching a measured event to its predicted bar.
std::uint64_t eventKey(const TimelineEvent& e) {
    std::uint64_t key = std::uint64_t(e.op.kind);
    key = key * 4 + std::uint64_t(e.lane) * 2 + std::uint64_t(e.op.pipe & 1);
    key = key * 1000003 + std::uint64_t(std::uint32_t(e.op.stage));
    key = key * 1000003 + std::uint64_t(std::uint32_t(e.op.mb + 1));
    key = key * 65537 + std::uint64_t(std::uint32_t(e.device));
    return key;
}

} // namespace

void addMeasuredOutlines(Scene& scene, int panel, const Timeline& predicted, const Timeline& measured) {
    std::unordered_map<std::uint64_t, const TimelineEvent*> byKey;
    byKey.reserve(measured.events.size());
    for (const TimelineEvent& e : measured.events) byKey.emplace(eventKey(e), &e);
    // A bar's own mapping from time to x: the layout is linear in time on one shared axis.
    double scale = 0;
    for (const SceneRect& r : scene.rects) {
        if (r.panel != panel || r.event < 0 || std::size_t(r.event) >= predicted.events.size()) continue;
        const double d = predicted.events[std::size_t(r.event)].duration();
        if (d > 0 && r.w > 0) {
            scale = r.w / d;
            break;
        }
    }
    if (scale <= 0) return;
    std::vector<SceneRect> outlines;
    for (const SceneRect& r : scene.rects) {
        if (r.panel != panel || r.event < 0 || std::size_t(r.event) >= predicted.events.size()) continue;
        if (r.role == kMeasuredRole) continue;
        const TimelineEvent& p = predicted.events[std::size_t(r.event)];
        const auto it = byKey.find(eventKey(p));
        if (it == byKey.end()) continue;
        const TimelineEvent& m = *it->second;
        SceneRect o;
        o.x = r.x + (m.start - p.start) * scale;
        o.w = m.duration() * scale;
        o.y = r.y - 0.5;
        o.h = r.h + 1.0;
        o.fill = "none";
        o.stroke = "#d62728";
        o.strokeWidth = 0.9;
        o.role = kMeasuredRole;
        o.event = r.event;
        o.panel = panel;
        outlines.push_back(std::move(o));
    }
    scene.rects.insert(scene.rects.end(), outlines.begin(), outlines.end());
}

Scene buildChartScene(const AnalysisResult& result, const ChartSettings& settings, double widthPt) {
    if (result.outcomes.empty()) return Scene{};
    std::vector<ChartPanel> panels;
    panels.reserve(result.outcomes.size());
    for (const ScheduleOutcome& o : result.outcomes) {
        ChartPanel panel;
        panel.timeline = &o.prediction.timeline;
        panel.title = o.title;
        panel.subtitle = o.prediction.report.costs.text;
        panels.push_back(std::move(panel));
    }
    ChartOptions options;
    options.palette = settings.palette;
    options.widthPt = widthPt;
    options.showComm = settings.showComm;
    options.legend = settings.legend;
    options.axis = settings.axis;
    options.labels = settings.labels;
    options.title = settings.title;
    if (settings.overlay && result.overlay && result.overlay->outcome < result.outcomes.size()) {
        // The axis must reach the measured end too, or late measured bars fall off the chart.
        options.timeEnd = 0;
        for (const ScheduleOutcome& other : result.outcomes)
            options.timeEnd = std::max(options.timeEnd, other.prediction.timeline.makespan());
        options.timeEnd = std::max(options.timeEnd, result.overlay->report.measuredMakespan);
    }
    Scene scene = layoutGantt(panels, options);
    if (settings.overlay && result.overlay && result.overlay->outcome < result.outcomes.size()) {
        const ScheduleOutcome& o = result.outcomes[result.overlay->outcome];
        if (result.measured)
            addMeasuredOutlines(scene, int(result.overlay->outcome), o.prediction.timeline, *result.measured);
    }
    return scene;
}

} // namespace stagecraft::gui
