#include "eval/chart_composition.h"

#include "layout/gantt_layout.h"
#include "layout/palette.h"

#include <algorithm>
#include <cstdio>

namespace stagecraft {

bool isEventBar(const SceneRect& r) {
    return (r.role == RectRole::Op || r.role == RectRole::Comm) && r.event >= 0 && r.panel >= 0 &&
           r.kind != kMeasuredKind;
}

void addMeasuredOutlines(Scene& scene, int panel, const Timeline& predicted, const Timeline& measured,
                         const OverlayReport& report) {
    // Measured event of each predicted event, from core's matching.
    std::vector<int> measuredOf(predicted.events.size(), -1);
    for (const OpDeviation& d : report.ops)
        if (d.predictedEvent < measuredOf.size() && d.measuredEvent < measured.events.size())
            measuredOf[d.predictedEvent] = int(d.measuredEvent);
    // A bar's own mapping from time to x: the layout is linear in time on one shared axis.
    double scale = 0;
    for (const SceneRect& r : scene.rects) {
        if (r.panel != panel || !isEventBar(r) || std::size_t(r.event) >= predicted.events.size()) continue;
        const double d = predicted.events[std::size_t(r.event)].duration();
        if (d > 0 && r.w > 0) {
            scale = r.w / d;
            break;
        }
    }
    if (scale <= 0) return;
    std::vector<SceneRect> outlines;
    for (const SceneRect& r : scene.rects) {
        if (r.panel != panel || !isEventBar(r) || std::size_t(r.event) >= predicted.events.size()) continue;
        const int mi = measuredOf[std::size_t(r.event)];
        if (mi < 0) continue;
        const TimelineEvent& p = predicted.events[std::size_t(r.event)];
        const TimelineEvent& m = measured.events[std::size_t(mi)];
        SceneRect o;
        o.x = r.x + (m.start - report.alignOffset - p.start) * scale;
        o.w = m.duration() * scale;
        o.y = r.y - 0.5;
        o.h = r.h + 1.0;
        o.fill = Color{0, 0, 0, 0};
        o.stroke = Color{0xd6, 0x27, 0x28, 255};
        o.strokeWidth = 0.9;
        o.role = RectRole::Op;
        o.kind = kMeasuredKind;
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
    options.tooltips = settings.tooltips;
    options.timeUnit =
        result.outcomes.front().prediction.report.unitless ? TimeUnit::Units : TimeUnit::Microseconds;
    if (settings.overlay && result.overlay && result.overlay->outcome < result.outcomes.size()) {
        // The axis must reach the measured end too, or late measured bars fall off the chart.
        options.timeEnd = 0;
        for (const ScheduleOutcome& other : result.outcomes)
            options.timeEnd = std::max(options.timeEnd, other.prediction.timeline.makespan());
        options.timeEnd = std::max(options.timeEnd, result.overlay->report.makespanMeasured);
    }
    Scene scene = layoutGantt(panels, options);
    if (settings.overlay && result.overlay && result.overlay->outcome < result.outcomes.size()) {
        const ScheduleOutcome& o = result.outcomes[result.overlay->outcome];
        if (result.measured)
            addMeasuredOutlines(scene, int(result.overlay->outcome), o.prediction.timeline, *result.measured,
                                result.overlay->report);
    }
    // Notes under the chart: the measured overlay's key, then the cost assumptions (one line per
    // distinct setup; imported schedules share the project's).
    const Palette& pal = findPalette(settings.palette);
    bool grew = false;
    const bool overlayDrawn = settings.overlay && result.overlay && result.measured;
    if (overlayDrawn) {
        scene.height += pal.fontSize * 1.4;
        const double y = scene.height - pal.fontSize * 0.35;
        SceneRect swatch;
        swatch.x = pal.margin;
        swatch.y = y - pal.fontSize * 0.75;
        swatch.w = pal.fontSize * 1.6;
        swatch.h = pal.fontSize * 0.8;
        swatch.fill = Color{0, 0, 0, 0};
        swatch.stroke = Color{0xd6, 0x27, 0x28, 255};
        swatch.strokeWidth = 0.9;
        swatch.role = RectRole::Legend;
        scene.rects.push_back(swatch);
        const std::string file = result.measuredPath.substr(result.measuredPath.find_last_of("/\\") + 1);
        char error[32];
        std::snprintf(error, sizeof error, "%+.1f%%", result.overlay->report.makespanError * 100);
        scene.texts.push_back({pal.margin + swatch.w + pal.fontSize * 0.5, y,
                               "measured (" + file + "): makespan " + error + " against the prediction",
                               pal.fontSize, pal.text, TextAnchor::Start, false});
        grew = true;
    }
    if (settings.title) {
        std::vector<std::string> lines;
        for (const ScheduleOutcome& o : result.outcomes)
            if (!o.prediction.report.costs.text.empty() &&
                std::find(lines.begin(), lines.end(), o.prediction.report.costs.text) == lines.end())
                lines.push_back(o.prediction.report.costs.text);
        for (const std::string& line : lines) {
            scene.height += pal.fontSize * 1.4;
            scene.texts.push_back({pal.margin, scene.height - pal.fontSize * 0.35, "Costs — " + line,
                                   pal.fontSize, pal.mutedText, TextAnchor::Start, false});
            grew = true;
        }
    }
    if (grew) {
        scene.height += pal.margin * 0.5;
        for (SceneRect& r : scene.rects)
            if (r.role == RectRole::Background) r.h = scene.height;
    }
    return scene;
}

} // namespace stagecraft
