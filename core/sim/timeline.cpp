#include "sim/timeline.h"

#include <algorithm>

namespace stagecraft {

TimelineShape shapeOf(const Schedule& s) {
    return {s.name, s.devices, s.pipes, s.stagesPerPipe, s.microbatches, s.chunksPerDevice, s.splitBackward};
}

double Timeline::makespan() const {
    double end = 0.0;
    for (const TimelineEvent& e : events) end = std::max(end, e.end);
    return end;
}

} // namespace stagecraft
