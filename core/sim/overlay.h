#pragma once
// Overlay: a predicted and a measured Timeline of the same schedule, matched op by op. Gives
// the error of every op and the statistics a calibration or a report needs.

#include "sim/timeline.h"

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

namespace stagecraft {

/// One op in both timelines. Errors are measured - predicted, in µs, after alignment.
struct OpDeviation {
    std::size_t predictedEvent = 0; ///< index into predicted.events
    std::size_t measuredEvent = 0;  ///< index into measured.events
    double startError = 0;
    double durationError = 0;
};

struct OverlayReport {
    std::vector<OpDeviation> ops; ///< in the predicted timeline's event order
    double makespanPredicted = 0;
    double makespanMeasured = 0; ///< after alignment
    /// The prediction's error against the run, (predicted - measured) / measured, as the runtime
    /// fit's reports and the acceptance read it (-0.05: predicted 5 % short); 0 when nothing was
    /// measured.
    double makespanError = 0;
    double meanAbsDurationError = 0;
    double maxAbsDurationError = 0;
    double meanAbsStartError = 0;
    double maxAbsStartError = 0;
    int worstOp = -1; ///< index into `ops` of the largest |durationError|; -1 when there are no ops
    /// Idle over total device time on the compute lanes: 1 - Σ compute durations / (p · makespan).
    double bubblePredicted = 0;
    double bubbleMeasured = 0;
    /// Subtracted from every measured time: measured first start - predicted first start.
    double alignOffset = 0;
    /// Predicted events (indices) the measurement does not hold: gradient syncs and optimizer
    /// steps, which traces of other tools do not record as such. Not counted in the errors.
    std::vector<std::size_t> unmatched;
};

/// Matches the ops (every event but transfers) of both timelines by identity (kind, mb, stage,
/// pipe) in linear time. A measured timeline of another shape, with a missing compute op (F, B, W)
/// or an extra op, or with an op on another device is refused with
/// ValidationError("overlay.mismatch") naming the first difference; predicted gradient syncs and
/// optimizer steps it lacks are listed in `unmatched`. Transfers are not matched; they count in
/// the makespans.
OverlayReport compareTimelines(const Timeline& predicted, const Timeline& measured);

/// The errors of one group of matched ops (the ops of a device, or of a kind).
struct OverlayGroup {
    std::size_t ops = 0;
    double meanAbsDurationError = 0; ///< µs
    /// The group's measured time over its predicted time, over its ops whose predicted duration
    /// is > 0 (a ratio of sums: an op predicted to take 45 µs that took 1.3 ms must not outweigh a
    /// device's hundred ops of 30 ms, as it does in a mean of ratios); nullopt when no op has a
    /// predicted duration (a ratio of a zero duration means nothing).
    std::optional<double> durationRatio;
};

/// Where one device's time went, in the prediction and in the measurement (µs): its compute lane
/// busy (every op's duration, matched or not) and the rest of the makespan, which it spent waiting
/// for its inputs, for transfers, or for the runtime between ops. Which of the two departs from
/// the prediction says whether the costs or the timing of the schedule are off: a device whose
/// busy time matches and whose idle time does not waited where the prediction did not.
struct DeviceTime {
    double busyPredicted = 0, busyMeasured = 0;
    double idlePredicted = 0, idleMeasured = 0;
};

/// Where a measurement departs from its prediction: per device, per op kind, and the ops that
/// drifted most.
struct OverlayBreakdown {
    std::vector<OverlayGroup> devices;            ///< [device] (shape.devices entries)
    std::vector<DeviceTime> deviceTimes;          ///< [device]: busy and idle, against the makespans
    std::array<OverlayGroup, kOpKindCount> kinds; ///< [OpKind]
    /// Indices into OverlayReport::ops, largest |durationError| first (ties: prediction order).
    std::vector<std::size_t> mostDrift;
};

/// Groups the op errors of `report`, which compareTimelines(predicted, measured) returned; keeps
/// the `top` ops that drifted most. A report of other timelines (an event index or a device out
/// of range) is refused with ValidationError("overlay.mismatch").
OverlayBreakdown breakdownOverlay(const Timeline& predicted, const Timeline& measured,
                                  const OverlayReport& report, std::size_t top = 5);

} // namespace stagecraft
