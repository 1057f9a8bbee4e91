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

namespace {

constexpr const char* kDot = " \u00B7 "; // " · "

ChunkShape chunkShape(const TimelineShape& shape) {
    return {shape.pipes, shape.stagesPerPipe, shape.chunksPerDevice};
}

/// Display unit of a chart whose axis ends at `end`: microseconds switch to ms from 2 ms and to
/// s from 2 s.
void chooseUnit(TimeAxis& axis, double end, TimeUnit unit) {
    if (unit != TimeUnit::Microseconds) return;
    axis.unit = "\u00B5s";
    if (end >= 2e6)
        axis.displayScale = 1e6, axis.unit = "s";
    else if (end >= 2e3)
        axis.displayScale = 1e3, axis.unit = "ms";
}

/// The nice step (1, 2 or 5 times a power of ten) for `span` displayed units in at most
/// `maxTicks` intervals, and the decimals its labels need.
std::pair<double, int> niceStep(double span, int maxTicks) {
    const double raw = span / maxTicks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * magnitude;
    for (double m : {1.0, 2.0, 5.0})
        if (m * magnitude >= raw * (1 - 1e-9)) {
            step = m * magnitude;
            break;
        }
    return {step, std::max(0, -int(std::floor(std::log10(step) + 1e-9)))};
}

} // namespace

int chunksPerPipe(const TimelineShape& shape) {
    return chunksPerPipe(chunkShape(shape));
}

int chunkInPipe(const TimelineShape& shape, const Op& op) {
    return chunkInPipe(chunkShape(shape), op);
}

std::string chartOpLabel(const TimelineShape& shape, const Op& op) {
    return opLabel(chunkShape(shape), op);
}

std::string durationText(double us, bool unitless) {
    if (unitless) return formatNumber(us, 3);
    if (std::abs(us) >= 2e6) return formatNumber(us / 1e6, 4) + " s";
    if (std::abs(us) >= 2e3) return formatNumber(us / 1e3, 4) + " ms";
    return formatNumber(us, 3) + " \u00b5s";
}

std::string formatNumber(double value, int decimals) {
    if (!std::isfinite(value)) return "?";
    decimals = std::clamp(decimals, 0, 9);
    std::array<char, 64> buffer{};
    auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::fixed,
                                decimals);
    if (result.ec != std::errc()) return "?";
    std::string text(buffer.data(), result.ptr);
    if (text.find('.') != std::string::npos) {
        while (text.back() == '0') text.pop_back();
        if (text.back() == '.') text.pop_back();
    }
    if (text == "-0") text = "0";
    return text;
}

std::string formatSignificant(double value, int digits) {
    if (!std::isfinite(value) || value == 0) return formatNumber(value, 0);
    const int integerDigits = int(std::floor(std::log10(std::abs(value)))) + 1;
    return formatNumber(value, std::clamp(digits - integerDigits, 0, 3));
}

TimeAxis niceTimeAxis(double end, int maxTicks, TimeUnit unit) {
    if (!(end > 0) || !std::isfinite(end)) end = 1;
    maxTicks = std::clamp(maxTicks, 1, 50);
    TimeAxis axis;
    chooseUnit(axis, end, unit);
    const double span = end / axis.displayScale;
    const auto [step, decimals] = niceStep(span, maxTicks);
    axis.step = step * axis.displayScale;
    for (int i = 0;; ++i) {
        const double v = i * step;
        if (v > span * (1 + 1e-9)) break;
        axis.ticks.push_back(v * axis.displayScale);
        axis.labels.push_back(formatNumber(v, decimals));
    }
    return axis;
}

TimeAxis windowTimeAxis(double begin, double end, int maxTicks, TimeUnit unit, double chartEnd) {
    if (!(chartEnd > 0) || !std::isfinite(chartEnd)) chartEnd = 1;
    maxTicks = std::clamp(maxTicks, 1, 50);
    TimeAxis axis;
    chooseUnit(axis, chartEnd, unit);
    if (!std::isfinite(begin) || !std::isfinite(end) || !(end > begin)) return axis;
    const double lo = begin / axis.displayScale, hi = end / axis.displayScale;
    const auto [step, decimals] = niceStep(hi - lo, maxTicks);
    axis.step = step * axis.displayScale;
    // Ticks are whole multiples of the step, so they stay put while the window pans. The slack
    // is a millionth of a step: a tick on the window's edge is in.
    const double slack = step * 1e-6;
    for (double i = std::ceil((lo - slack) / step);; ++i) {
        const double v = i * step;
        if (v > hi + slack) break;
        axis.ticks.push_back(v * axis.displayScale);
        axis.labels.push_back(formatNumber(v, decimals));
    }
    return axis;
}

std::string timelineSummary(const Timeline& timeline, TimeUnit unit) {
    const TimelineShape& shape = timeline.shape;
    double makespan = 0, busy = 0;
    int rows = std::max(0, shape.devices);
    for (const TimelineEvent& e : timeline.events) {
        if (!isValidChartEvent(e) || e.device >= kMaxChartRows) continue;
        makespan = std::max(makespan, e.end);
        rows = std::max(rows, e.device + 1);
        if (e.lane == Lane::Compute) busy += e.duration();
    }
    std::string text = "p=" + std::to_string(rows);
    if (shape.microbatches > 0) text += kDot + std::string("m=") + std::to_string(shape.microbatches);
    if (chunksPerPipe(shape) > 1) text += kDot + std::string("v=") + std::to_string(chunksPerPipe(shape));
    const TimeAxis axis = niceTimeAxis(makespan, 1, unit);
    text += kDot + std::string("makespan ") + formatSignificant(makespan / axis.displayScale);
    if (!axis.unit.empty()) text += " " + axis.unit;
    if (makespan > 0 && rows > 0)
        text +=
            kDot + std::string("bubble ") + formatNumber(100.0 * (1.0 - busy / (rows * makespan)), 1) + "%";
    return text;
}

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
