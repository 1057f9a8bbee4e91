#pragma once
// The ZB paper's own automatic heuristic for ZB-1p / ZB-2p (schedules.md §10.2): one pass over the
// micro-batches that places, for micro-batch 0, a forward on every device, as many extra warm-up
// forwards per device as fit before its first backward arrives (within the memory limit, each
// device fewer than the one before it) and the backwards from the last device to the first; then,
// for every later micro-batch, one forward per device (optionally held back on a device well ahead
// of the next) and one backward per device, each preceded by pending W ops that free memory, that
// end before the input arrives, or that fill a gap larger than the bubble other devices already
// have. zb-auto times its orders as seeds, so it is never slower than the paper's heuristic.

#include "generators/zb_greedy.h"

#include <vector>

namespace stagecraft::zb {

struct HeuristicOrder {
    Schedule order;
    double span = 0;     ///< as the heuristic timed it: the largest device span
    double makespan = 0; ///< the end of its last op
};

/// The heuristic's orders for `pipe` (one stage per device), shaped as `shape`: one per setting of
/// its three choices (a bubble allowed before the first B, backward priority, filling a gap that
/// is within the bubble budget) whose order completes within the memory limit. Each is timed as
/// the simulator times it; the paper keeps the one with the smallest span. `bestOnly`: just that
/// one (ties to the shorter makespan), the others never built as schedules.
std::vector<HeuristicOrder> zbPaperHeuristic(const Pipe& pipe, const Schedule& shape, bool bestOnly = false);

} // namespace stagecraft::zb
