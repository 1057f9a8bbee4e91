#pragma once
// The simulator: list scheduling of a schedule under a cost model, producing a Timeline with
// one compute event per op and one communication event per cross-device transfer.

#include "sim/list_scheduler.h"
#include "sim/timeline.h"

namespace stagecraft {

/// Thrown (as ValidationError "schedule.deadlock") when the schedule cannot run to completion;
/// the message names the devices that wait on each other.
Timeline simulate(const Schedule& schedule, const OpCosts& costs);
/// The same with an index the caller built (and can reuse for metrics).
Timeline simulate(const Schedule& schedule, const OpIndex& index, const OpCosts& costs);

} // namespace stagecraft
