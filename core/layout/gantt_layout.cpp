#include "layout/gantt_layout.h"

#include "error.h"
#include "ir/op_label.h"
#include "layout/chart_frame.h"
#include "layout/compared_rows.h"
#include "size_limits.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace stagecraft {

/// More unit steps than this draw no step grid (it would be a grey wash, not a grid).
constexpr double kMaxStepGridLines = 4096;

Scene layoutGantt(std::span<const ChartPanel> panels, const ChartOptions& options) {
    // Frame first (rows, headers, axis, legend), then one bar per drawn event on it: the same
    // frame and bar functions the windowed screen chart uses (chart_rows.h).
    const ChartContent content = scanChart(panels, options);
    const ChartFrame frame = layoutChartFrame(content, options);
    const TimeMapping mapping = frame.fitMapping();

    Scene scene;
    scene.width = frame.width;
    scene.height = frame.height;
    scene.fontFamily = frame.fontFamily;
    scene.rects.push_back(chartBackground(frame));
    for (std::size_t p = 0; p < content.panels.size(); ++p) {
        appendPanelDecor(scene, frame, p);
        appendIdleRows(scene, frame, p, mapping);
        const ChartPanelContent& panel = content.panels[p];
        const std::vector<TimelineEvent>& events = panel.timeline->events;
        const ComparedRows* compared = panels[p].compared;
        for (std::size_t k = 0; k < events.size(); ++k) {
            if (!isDrawnChartEvent(events[k], panel.rows, content.timeEnd, options.showComm,
                                   content.timeStart))
                continue;
            const std::size_t bar = scene.rects.size();
            appendEventBar(scene, frame, *panel.timeline, int(p), k, mapping, options.tooltips && !compared);
            // Paired rows: the bar's tooltip says both sides and their difference.
            if (compared && options.tooltips && bar < scene.rects.size())
                scene.rects[bar].tooltip = comparedEventText(*compared, k, frame.axisAtFit);
        }
        appendOverlapFrames(scene, frame, *panel.timeline, int(p), mapping);
    }
    // Measured outlines over every bar, as the last rects.
    for (std::size_t p = 0; p < content.panels.size(); ++p) {
        const ChartPanel& in = panels[p];
        if (!in.measured || !in.overlay) continue;
        const ChartPanelContent& panel = content.panels[p];
        for (const OpDeviation& d : in.overlay->ops) {
            if (d.predictedEvent >= panel.timeline->events.size() ||
                d.measuredEvent >= in.measured->events.size())
                continue;
            if (!isDrawnChartEvent(panel.timeline->events[d.predictedEvent], panel.rows, content.timeEnd,
                                   options.showComm, content.timeStart))
                continue;
            const TimelineEvent& m = in.measured->events[d.measuredEvent];
            if (!std::isfinite(m.start) || !std::isfinite(m.end) || m.end < m.start) continue;
            appendMeasuredOutline(scene, frame, *panel.timeline, int(p), d.predictedEvent,
                                  in.measured->events[d.measuredEvent], in.overlay->alignOffset, mapping);
        }
    }
    // The papers' step grid: a thin line at every unit over each panel's rows.
    if (options.stepGrid && options.timeUnit == TimeUnit::Units && mapping.pxPerUs >= 3 &&
        frame.timeEnd <= kMaxStepGridLines) {
        const Color grid = frame.palette->grid;
        for (const ChartFramePanel& panel : frame.panels)
            for (int t = int(std::ceil(frame.timeStart)); t <= int(std::floor(frame.timeEnd)); ++t) {
                const double x = mapping.timeToX(t);
                scene.lines.push_back({x, panel.top, x, panel.bottom, grid, 0.3, false});
            }
    }
    appendAxis(scene, frame, mapping, frame.timeStart, frame.timeEnd);
    if (options.legend) appendLegend(scene, frame);
    return scene;
}

} // namespace stagecraft
