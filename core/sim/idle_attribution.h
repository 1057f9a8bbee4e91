#pragma once
// How one idle gap on a device's compute lane splits into causes. Shared by the per-device
// totals of computeTimeMetrics and the intervals of idleIntervals, so the two always agree.

#include "sim/list_scheduler.h"

#include <algorithm>

namespace stagecraft {

/// The gap from `previousEnd` to the next op's start (`gap` long), whose dependency that arrived
/// last ended at `latestEnd` on `latestDevice` (-1 when the op has none), its micro-batch (slice
/// unit) `mb`. Pieces in time order: waiting on the producer, then its transfer, then the rest.
struct GapSplit {
    int waitingOnDevice = -1; ///< -1: the whole gap is `other`
    double waiting = 0;
    double communication = 0;
    double other = 0;
};

inline GapSplit splitIdleGap(double previousEnd, double gap, double latestEnd, int latestDevice, int device,
                             int mb, const OpCosts* costs) {
    GapSplit split;
    if (latestDevice >= 0 && latestDevice != device) {
        split.waitingOnDevice = latestDevice;
        split.waiting = std::clamp(latestEnd - previousEnd, 0.0, gap);
        const double comm = costs ? costs->commBetween(latestDevice, device, mb) : 0.0;
        split.communication = std::min(gap - split.waiting, comm);
        split.other = gap - split.waiting - split.communication;
    } else {
        split.other = gap;
    }
    return split;
}

} // namespace stagecraft
