#pragma once
// Key figures of any timeline, with or without its schedule: makespan, the bubble ratio and each
// device's busy time on its compute lane. Measured traces opened on their own have no schedule
// to run computeTimeMetrics against; views still show these for them.

#include "sim/timeline.h"

#include <vector>

namespace stagecraft {

struct TimelineBusy {
    double makespan = 0;      ///< latest end of any event (0 for none)
    double bubbleRatio = 0;   ///< 1 - Σ busy / (devices · makespan); 0 when the makespan is 0
    std::vector<double> busy; ///< [device]: sum of compute-lane durations (shape.devices entries at least)
};

/// Events with a negative device or non-finite or backward times are left out. Linear in events.
TimelineBusy measureTimelineBusy(const Timeline& timeline);

} // namespace stagecraft
