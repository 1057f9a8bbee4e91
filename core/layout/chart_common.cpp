#include "layout/chart_common.h"

#include "error.h"
#include "ir/op_label.h"
#include "size_limits.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace stagecraft {

namespace {

constexpr const char* kDot = " \u00B7 "; // " · "

ChunkShape chunkShape(const TimelineShape& shape) {
    return {shape.pipes, shape.stagesPerPipe, shape.chunksPerDevice, shape.sequenceSlices};
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

bool isValidChartEvent(const TimelineEvent& e) {
    return e.device >= 0 && std::isfinite(e.start) && std::isfinite(e.end) && e.end >= e.start &&
           int(e.op.kind) < kOpKindCount && int(e.comm) <= int(CommKind::Collective);
}

bool isDrawnChartEvent(const TimelineEvent& e, int rows, double timeEnd, bool showComm, double timeStart) {
    // Zero-length events draw nothing and stay out of the legend.
    return isValidChartEvent(e) && e.device < rows && e.start < timeEnd && e.end > timeStart &&
           e.end > e.start && (e.lane == Lane::Compute || showComm);
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
    if (shape.microbatches > 0) {
        // A sliced schedule's micro-batch numbers are slice units: m counts micro-batches.
        const int slices = std::max(1, shape.sequenceSlices);
        text += kDot + std::string("m=") + std::to_string(shape.microbatches / slices);
        if (slices > 1) text += kDot + std::string("k=") + std::to_string(slices);
    }
    if (chunksPerPipe(shape) > 1) text += kDot + std::string("v=") + std::to_string(chunksPerPipe(shape));
    const TimeAxis axis = niceTimeAxis(makespan, 1, unit);
    text += kDot + std::string("makespan ") + formatSignificant(makespan / axis.displayScale);
    if (!axis.unit.empty()) text += " " + axis.unit;
    if (makespan > 0 && rows > 0)
        text +=
            kDot + std::string("bubble ") + formatNumber(100.0 * (1.0 - busy / (rows * makespan)), 1) + "%";
    return text;
}

} // namespace stagecraft
