#include "sim/timeline_busy.h"

#include <algorithm>
#include <cmath>

namespace stagecraft {

TimelineBusy measureTimelineBusy(const Timeline& timeline) {
    TimelineBusy out;
    out.busy.assign(std::size_t(std::max(0, timeline.shape.devices)), 0.0);
    for (const TimelineEvent& e : timeline.events) {
        if (e.device < 0 || !std::isfinite(e.start) || !std::isfinite(e.end) || e.end < e.start) continue;
        out.makespan = std::max(out.makespan, e.end);
        if (e.lane != Lane::Compute) continue;
        // Devices beyond the shape (a hand-edited trace) still count; a bound keeps a bad id cheap.
        if (std::size_t(e.device) >= out.busy.size()) {
            if (e.device > 65535) continue;
            out.busy.resize(std::size_t(e.device) + 1, 0.0);
        }
        out.busy[std::size_t(e.device)] += e.end - e.start;
    }
    if (out.makespan > 0 && !out.busy.empty()) {
        double sum = 0;
        for (double b : out.busy) sum += b;
        out.bubbleRatio = 1.0 - sum / (double(out.busy.size()) * out.makespan);
    }
    return out;
}

} // namespace stagecraft
