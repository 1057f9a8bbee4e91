#pragma once
// Time metrics of a timeline: makespan, bubble ratios, per-device busy/idle and where each
// device's idle time comes from.

#include "ir/op_index.h"
#include "ir/schedule.h"
#include "sim/list_scheduler.h"
#include "sim/timeline.h"

#include <vector>

namespace stagecraft {

/// Idle time of one device split by cause.
struct BubbleBreakdown {
    double warmup = 0;             ///< before the device's first op
    double cooldown = 0;           ///< after its last op, until the makespan
    double communication = 0;      ///< waiting for a transfer in flight (after its producer ended)
    std::vector<double> waitingOn; ///< [device k]: waiting for an op of device k to finish
    double other = 0;              ///< anything else (collectives)
};

struct DeviceMetrics {
    double busy = 0; ///< sum of compute-lane op durations
    double idle = 0; ///< makespan - busy
    double firstStart = 0;
    double lastEnd = 0;
    double span() const { return lastEnd - firstStart; }
    BubbleBreakdown bubbles;
};

struct TimeMetrics {
    double makespan = 0;
    /// Idle over total device time, every device from 0 to the makespan (an optimizer flush
    /// ends every device's iteration): Σ idle / (p · makespan).
    double bubbleRatio = 0;
    /// The zero-bubble papers' measure for schedules without a flush: cost = the longest
    /// per-device span (first start to last end), ratio = (cost - busiest device) / cost.
    double spanBubbleRatio = 0;
    std::vector<DeviceMetrics> devices;
};

/// `timeline` must be a timeline of `schedule` (its compute events in the schedule's order);
/// otherwise ValidationError "timeline.mismatch" says where they differ. `costs` are the costs
/// the timeline was simulated with, to tell transfer time from waiting; null for measured
/// timelines (every wait then counts as waiting on the producer).
TimeMetrics computeTimeMetrics(const Schedule& schedule, const Timeline& timeline,
                               const OpCosts* costs = nullptr);
/// The same with an index of `schedule` the caller already built.
TimeMetrics computeTimeMetrics(const Schedule& schedule, const OpIndex& index, const Timeline& timeline,
                               const OpCosts* costs = nullptr);

} // namespace stagecraft
