#include "sim/timeline.h"

#include <algorithm>

namespace stagecraft {

const char* commKindName(CommKind kind) {
    switch (kind) {
    case CommKind::None:
        return "compute";
    case CommKind::Activation:
        return "activation";
    case CommKind::Gradient:
        return "gradient";
    case CommKind::Collective:
        return "collective";
    }
    return "?";
}

TimelineShape shapeOf(const Schedule& s) {
    return {s.name,          s.devices,      s.pipes,
            s.stagesPerPipe, s.microbatches, s.chunksPerDevice,
            s.splitBackward, s.overlapped,   s.sequenceSlices};
}

double Timeline::makespan() const {
    double end = 0.0;
    for (const TimelineEvent& e : events) end = std::max(end, e.end);
    return end;
}

} // namespace stagecraft
