#include "sim/overlay.h"

#include "error.h"
#include "ir/op_name.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>

namespace stagecraft {

namespace {

[[noreturn]] void mismatch(const std::string& field, const std::string& message) {
    throw ValidationError("overlay.mismatch", field, message);
}

void checkShapes(const TimelineShape& p, const TimelineShape& m) {
    auto same = [](const char* field, long long predicted, long long measured) {
        if (predicted != measured)
            mismatch(std::string("shape.") + field,
                     std::string("the timelines have different shapes: ") + field + " = " +
                         std::to_string(predicted) + " predicted, " + std::to_string(measured) + " measured");
    };
    same("devices", p.devices, m.devices);
    same("pipes", p.pipes, m.pipes);
    same("stages_per_pipe", p.stagesPerPipe, m.stagesPerPipe);
    same("microbatches", p.microbatches, m.microbatches);
    same("chunks_per_device", p.chunksPerDevice, m.chunksPerDevice);
    same("split_backward", p.splitBackward, m.splitBackward);
    // A trace of another tool has no schedule name; two names must agree.
    if (!p.schedule.empty() && !m.schedule.empty() && p.schedule != m.schedule)
        mismatch("shape.schedule", "the timelines are of different schedules: '" + p.schedule +
                                       "' predicted, '" + m.schedule + "' measured");
}

/// Why an op does not fit the shape, if it does not (so that its packed key is unique).
std::optional<std::string> outsideShape(const Op& op, const TimelineShape& s) {
    if (op.stage < 0 || op.stage >= s.stagesPerPipe)
        return "stage " + std::to_string(op.stage) + " is outside [0, " + std::to_string(s.stagesPerPipe) +
               ")";
    if (op.pipe >= s.pipes)
        return "pipe " + std::to_string(op.pipe) + " is outside [0, " + std::to_string(s.pipes) + ")";
    const bool perMicrobatch = isComputeKind(op.kind);
    if (perMicrobatch ? op.mb < 0 || op.mb >= s.microbatches : op.mb != -1)
        return "micro-batch " + std::to_string(op.mb) + " is outside " +
               (perMicrobatch ? "[0, " + std::to_string(s.microbatches) + ")" : std::string("{-1}"));
    return std::nullopt;
}

std::string where(const char* which, std::size_t i) {
    return std::string(which) + ".events[" + std::to_string(i) + "]";
}

double firstStart(const Timeline& t) {
    double first = INFINITY;
    for (const TimelineEvent& e : t.events)
        if (!e.isTransfer()) first = std::min(first, e.start);
    return std::isfinite(first) ? first : 0.0;
}

double bubble(const Timeline& t, double makespan, double offset) {
    double busy = 0;
    for (const TimelineEvent& e : t.events)
        if (e.lane == Lane::Compute) busy += (e.end - offset) - (e.start - offset);
    const double total = double(t.shape.devices) * makespan;
    return total > 0 ? 1.0 - busy / total : 0.0;
}

} // namespace

OverlayReport compareTimelines(const Timeline& predicted, const Timeline& measured) {
    checkShapes(predicted.shape, measured.shape);
    const TimelineShape& shape = predicted.shape;

    std::unordered_map<std::uint64_t, std::size_t> predictedOf;
    predictedOf.reserve(predicted.events.size());
    for (std::size_t i = 0; i < predicted.events.size(); ++i) {
        const TimelineEvent& e = predicted.events[i];
        if (e.isTransfer()) continue;
        if (const auto why = outsideShape(e.op, shape))
            mismatch(where("predicted", i),
                     "predicted op " + opName(e.op, shape.splitBackward, shape.sequenceSlices) + ": " + *why);
        const auto [it, inserted] = predictedOf.emplace(opIdentity(e.op), i);
        if (!inserted)
            mismatch(where("predicted", i), "op " + opName(e.op, shape.splitBackward, shape.sequenceSlices) +
                                                " appears twice in the prediction (events[" +
                                                std::to_string(it->second) + "] and events[" +
                                                std::to_string(i) + "])");
    }

    constexpr std::size_t kUnmatched = std::size_t(-1);
    std::vector<std::size_t> measuredOf(predicted.events.size(), kUnmatched);
    for (std::size_t j = 0; j < measured.events.size(); ++j) {
        const TimelineEvent& e = measured.events[j];
        if (e.isTransfer()) continue;
        if (const auto why = outsideShape(e.op, shape))
            mismatch(where("measured", j),
                     "measured op " + opName(e.op, shape.splitBackward, shape.sequenceSlices) + ": " + *why);
        const auto it = predictedOf.find(opIdentity(e.op));
        if (it == predictedOf.end())
            mismatch(where("measured", j), "measured op " +
                                               opName(e.op, shape.splitBackward, shape.sequenceSlices) +
                                               " (device " + std::to_string(e.device) + ", events[" +
                                               std::to_string(j) + "]) is not in the prediction");
        const TimelineEvent& p = predicted.events[it->second];
        if (p.device != e.device)
            mismatch(where("measured", j), "op " + opName(e.op, shape.splitBackward, shape.sequenceSlices) +
                                               " runs on device " + std::to_string(p.device) +
                                               " in the prediction and on device " +
                                               std::to_string(e.device) + " in the measurement (events[" +
                                               std::to_string(j) + "])");
        std::size_t& slot = measuredOf[it->second];
        if (slot != kUnmatched)
            mismatch(where("measured", j), "op " + opName(e.op, shape.splitBackward, shape.sequenceSlices) +
                                               " appears twice in the measurement (events[" +
                                               std::to_string(slot) + "] and events[" + std::to_string(j) +
                                               "])");
        slot = j;
    }

    OverlayReport report;
    report.alignOffset = firstStart(measured) - firstStart(predicted);
    report.ops.reserve(predictedOf.size());
    double sumDuration = 0, sumStart = 0;
    for (std::size_t i = 0; i < predicted.events.size(); ++i) {
        const TimelineEvent& p = predicted.events[i];
        if (p.isTransfer()) continue;
        if (measuredOf[i] == kUnmatched) {
            // Traces of other tools record no gradient sync or optimizer step as such: those are
            // reported, not refused. A compute op that is missing means an incomplete trace.
            if (!isComputeKind(p.op.kind)) {
                report.unmatched.push_back(i);
                continue;
            }
            mismatch(where("predicted", i), "op " + opName(p.op, shape.splitBackward, shape.sequenceSlices) +
                                                " (device " + std::to_string(p.device) +
                                                ") of the prediction is missing from the measurement");
        }
        const TimelineEvent& m = measured.events[measuredOf[i]];
        OpDeviation d{i, measuredOf[i], (m.start - report.alignOffset) - p.start,
                      m.duration() - p.duration()};
        sumDuration += std::abs(d.durationError);
        sumStart += std::abs(d.startError);
        report.maxAbsStartError = std::max(report.maxAbsStartError, std::abs(d.startError));
        if (report.worstOp < 0 || std::abs(d.durationError) > report.maxAbsDurationError) {
            report.maxAbsDurationError = std::abs(d.durationError);
            report.worstOp = int(report.ops.size());
        }
        report.ops.push_back(d);
    }
    if (!report.ops.empty()) {
        report.meanAbsDurationError = sumDuration / double(report.ops.size());
        report.meanAbsStartError = sumStart / double(report.ops.size());
    }

    report.makespanPredicted = predicted.makespan();
    for (const TimelineEvent& e : measured.events)
        report.makespanMeasured = std::max(report.makespanMeasured, e.end - report.alignOffset);
    report.makespanError =
        report.makespanMeasured > 0
            ? (report.makespanPredicted - report.makespanMeasured) / report.makespanMeasured
            : 0.0;
    report.bubblePredicted = bubble(predicted, report.makespanPredicted, 0.0);
    report.bubbleMeasured = bubble(measured, report.makespanMeasured, report.alignOffset);
    return report;
}

namespace {

/// Sums of one group, turned into an OverlayGroup at the end.
struct GroupSums {
    std::size_t ops = 0;
    double absDuration = 0, predictedTime = 0, measuredTime = 0;

    void add(double predictedDuration, double measuredDuration) {
        ++ops;
        absDuration += std::abs(measuredDuration - predictedDuration);
        if (predictedDuration > 0) {
            predictedTime += predictedDuration;
            measuredTime += measuredDuration;
        }
    }
    OverlayGroup group() const {
        OverlayGroup g;
        g.ops = ops;
        if (ops > 0) g.meanAbsDurationError = absDuration / double(ops);
        if (predictedTime > 0) g.durationRatio = measuredTime / predictedTime;
        return g;
    }
};

/// The k ops of the largest |durationError|, largest first; ties keep the prediction's order.
std::vector<std::size_t> largestDrift(const OverlayReport& report, std::size_t k) {
    std::vector<std::size_t> order(report.ops.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    k = std::min(k, order.size());
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(k), order.end(),
                      [&](std::size_t a, std::size_t b) {
                          const double da = std::abs(report.ops[a].durationError);
                          const double db = std::abs(report.ops[b].durationError);
                          return da != db ? da > db : a < b;
                      });
    order.resize(k);
    return order;
}

} // namespace

OverlayBreakdown breakdownOverlay(const Timeline& predicted, const Timeline& measured,
                                  const OverlayReport& report, std::size_t top) {
    const int devices = predicted.shape.devices;
    std::vector<GroupSums> perDevice(std::size_t(std::max(devices, 0)));
    std::array<GroupSums, kOpKindCount> perKind{};
    for (std::size_t k = 0; k < report.ops.size(); ++k) {
        const OpDeviation& d = report.ops[k];
        if (d.predictedEvent >= predicted.events.size() || d.measuredEvent >= measured.events.size())
            mismatch("report.ops[" + std::to_string(k) + "]",
                     "the overlay report is not of these timelines: ops[" + std::to_string(k) +
                         "] names an event beyond them");
        const TimelineEvent& p = predicted.events[d.predictedEvent];
        const TimelineEvent& m = measured.events[d.measuredEvent];
        if (std::size_t(p.op.kind) >= perKind.size())
            mismatch(where("predicted", d.predictedEvent),
                     "predicted event of kind " + std::to_string(int(p.op.kind)) + ", not an op kind");
        if (p.device < 0 || p.device >= devices)
            mismatch(where("predicted", d.predictedEvent),
                     "predicted op " +
                         opName(p.op, predicted.shape.splitBackward, predicted.shape.sequenceSlices) +
                         " runs on device " + std::to_string(p.device) + ", outside [0, " +
                         std::to_string(devices) + ")");
        perDevice[std::size_t(p.device)].add(p.duration(), m.duration());
        perKind[std::size_t(p.op.kind)].add(p.duration(), m.duration());
    }
    OverlayBreakdown breakdown;
    for (const GroupSums& g : perDevice) breakdown.devices.push_back(g.group());
    breakdown.deviceTimes.assign(perDevice.size(), DeviceTime{});
    auto addBusy = [&](const Timeline& t, double DeviceTime::*busy) {
        for (const TimelineEvent& e : t.events)
            if (e.lane == Lane::Compute && e.device >= 0 && e.device < devices)
                breakdown.deviceTimes[std::size_t(e.device)].*busy += e.duration();
    };
    addBusy(predicted, &DeviceTime::busyPredicted);
    addBusy(measured, &DeviceTime::busyMeasured);
    for (DeviceTime& d : breakdown.deviceTimes) {
        d.idlePredicted = std::max(0.0, report.makespanPredicted - d.busyPredicted);
        d.idleMeasured = std::max(0.0, report.makespanMeasured - d.busyMeasured);
    }
    for (std::size_t k = 0; k < perKind.size(); ++k) breakdown.kinds[k] = perKind[k].group();
    breakdown.mostDrift = largestDrift(report, top);
    return breakdown;
}

} // namespace stagecraft
