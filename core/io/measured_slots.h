#pragma once
// The slots of the schedule IR (ir/overlap.h) in a measured run: a whole backward in a run that
// splits the backward (torch's B next to I and W, DualPipeV's) is one range that computed both
// halves at once, while the IR, the simulator and the overlay hold it as a B and its W. This
// divides such a measured event the way the simulator divides a slot among its ops: in proportion
// to the durations the same ops take where they run alone (list_scheduler.h, splitSlots).

#include "sim/timeline.h"

#include <cstddef>
#include <vector>

namespace stagecraft {

/// `compute` holds one device's compute events; `whole` the indices of its B events that are
/// whole backwards. Shortens each to its input-gradient part and appends its W event over the
/// rest, in proportion to the stage's median stand-alone B (the I ranges) and W events of
/// `compute`; without both, the W is an empty event at the backward's end.
void splitWholeBackwards(std::vector<TimelineEvent>& compute, const std::vector<std::size_t>& whole);

/// Sorts slot heads the way Schedule::overlapped is sorted (by pipe, stage, micro-batch), so
/// TimelineShape::overlapped of a measured run reads like a prediction's.
void sortOverlapHeads(std::vector<Op>& heads);

} // namespace stagecraft
