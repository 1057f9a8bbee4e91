#pragma once
// The fewest single-op moves that make a broken order run, found by search, so that repair can
// prove its count or beat it.
//
// Why a kept set decides it: an order runs exactly when its ops' dependencies together with each
// device's order form no cycle (a topological order of that graph, projected on each device, is
// the order; the list scheduler then never waits forever). Ops that are not moved keep their
// relative order on their device; moved ops can go anywhere. So k moves suffice exactly when some
// k ops can be taken out of the device chains (each device's remaining ops linked in order) so
// that the dependencies and the chains form no cycle: the moved ops are then put back in a
// topological order, one `move X after Y` each.
//
// The search: find a cycle; every fix takes out one of the ops where the cycle enters or leaves a
// device by a dependency (an op inside a chain stretch, taken out, leaves its neighbours linked,
// so the cycle stays); branch on each, deepening one move at a time. An op placed before its own
// producer is such a cycle with two ends, looked for first, and the inversions that share no op
// bound the moves still needed, which prunes the deepening. A whole backward (its B and
// W run as one slot and move only after a split) is never taken out. Each step of the search is
// one cycle check, O(ops + dependencies); `budget` caps the steps.

#include "edit/edit.h"
#include "ir/schedule.h"

#include <cstddef>
#include <vector>

namespace stagecraft {

struct FewestMoves {
    /// True when the search ran to its end: `moves` is then the fewest (empty and `found` false
    /// when no order within `maxMoves` moves runs).
    bool complete = false;
    bool found = false;
    std::vector<Edit> moves; ///< `move X after Y` / `move X to 0`, in the order to apply them
    std::size_t steps = 0;   ///< cycle checks the search made
};

/// The fewest moves, at most `maxMoves`, after which `schedule`'s order runs, with at most
/// `budget` cycle checks. The schedule must be one the validator passes but for its order (each
/// op once, in range): what a ScheduleEditor holds.
FewestMoves fewestMoves(const Schedule& schedule, std::size_t maxMoves, std::size_t budget);

} // namespace stagecraft
