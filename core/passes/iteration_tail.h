#pragma once
// Schedule -> Schedule pass that completes an iteration for the simulator: a gradient sync for
// every stage replica that has none (data-parallel all-reduce or reduce-scatter, posted right
// after the stage's last backward so it overlaps the rest of the backward pass, as Megatron's
// overlapped grad reduce and breadth-first's per-stage reduce-scatter do), and an optimizer step
// per stage at the end of each device's order. Each is added only where the schedule has none, so
// a schedule that has its tail already keeps it (the pass can run twice).

#include "ir/schedule.h"

namespace stagecraft {

struct IterationTailOptions {
    bool gradientSync = true; ///< add syncs to stages that have none
    bool optimizer = true;    ///< add one Optimizer op per stage at the end of its device
};

Schedule addIterationTail(const Schedule& schedule, const IterationTailOptions& options);
/// The same, consuming `schedule`: the tail is added to its orders in place (from the back, so ops
/// before the last sync do not move; with the room generators reserve, nothing is reallocated), so
/// a million-op schedule is neither held twice nor copied.
Schedule addIterationTail(Schedule&& schedule, const IterationTailOptions& options);

} // namespace stagecraft
