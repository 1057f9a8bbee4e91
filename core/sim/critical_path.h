#pragma once
// The critical path of a timeline: the chain of ops that set the makespan. Starting from the
// compute event that ends last, each op's predecessor is whatever released it: the data
// dependency that arrived exactly at its start (its end, plus the transfer when it crosses
// devices), else the previous op on its device ending at its start. Dependencies win ties. A slot
// (ir/overlap.h) is one unit: entered at its head, released by an input of any of its ops, and
// left from its last op.

#include "ir/op_index.h"
#include "sim/list_scheduler.h"
#include "sim/timeline.h"

#include <cstddef>
#include <vector>

namespace stagecraft {

/// Event indices into `timeline.events`, first to last. `costs` are the costs the timeline was
/// simulated with (transfer delays); null treats transfers as free. In a measured timeline an op
/// that nothing released exactly at its start takes the predecessor that arrived last. Empty for
/// a timeline without compute events. Linear in the number of ops; throws ValidationError
/// "timeline.mismatch" when the timeline is not of `schedule`.
std::vector<std::size_t> criticalPath(const Schedule& schedule, const OpIndex& index,
                                      const Timeline& timeline, const OpCosts* costs = nullptr);

} // namespace stagecraft
