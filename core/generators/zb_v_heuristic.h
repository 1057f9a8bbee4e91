#pragma once
// The ZB paper's ZB-V heuristic (schedules.md §10.3): a timed greedy over the V placement that puts
// chunk-0 forwards until the chunk-1 input arrives (within the memory limit), balances the warm-up
// across devices, then alternates a backward round and a forward round per device, filling the
// gaps before them with pending W ops when a W fits the gap or the gap exceeds the bubble other
// devices already have; re-run with each device's bubble as its allowance while that improves, over
// the grid of filling before B and before F. zb-v times its result as one of its candidates, so it
// is never slower than the paper's heuristic.

#include "generators/zb_greedy.h"

#include <vector>

namespace stagecraft::zb {

/// The heuristic's orders for `pipe` (2p stages on p devices in a V: stage r and 2p-1-r on device
/// r), named and shaped as `shape`: one per setting of the fill grid that completes within the
/// pipe's memory limit (none when no setting does, e.g. too few micro-batches to fill the V).
std::vector<Schedule> zbVHeuristic(const Pipe& pipe, const Schedule& shape);

} // namespace stagecraft::zb
