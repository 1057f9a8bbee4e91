#pragma once
// "Apply the trace's shape": a measured run of another pipeline than the project's is refused by
// the overlay with what differs; this gives the project that run's pipeline (pp, micro-batches,
// chunks per device) and the registered schedules whose order has that very shape, so a front
// end can offer the change instead of advice.

#include "project/project.h"
#include "sim/timeline.h"

#include <string>
#include <vector>

namespace stagecraft {

struct TraceShapeFit {
    /// `project` with pp = the run's devices, micro-batches = its micro-batches and, when each
    /// device holds several stages, chunks = stages per device; nothing else changed.
    Project project;
    /// Registered schedules (registry order) whose order for those parameters has the run's
    /// devices, pipes, stages, split of the backward, stage placement (loop or V) and overlapped
    /// F&B slots or none: the ones an overlay of the run can match. Empty when none has.
    std::vector<std::string> schedules;
};

/// The project fitted to `measured`'s shape. Never throws for a shape no schedule has: the list
/// is then empty (the caller says so).
TraceShapeFit fitTraceShape(const Project& project, const Timeline& measured);

} // namespace stagecraft
