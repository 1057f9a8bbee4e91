#pragma once
// Where each op of a schedule sits in one of its timelines: the event index of every op, by the
// op's global id (OpIndex::globalId). The critical path and the idle intervals read op events
// through it.

#include "ir/op_index.h"
#include "sim/timeline.h"

#include <cstddef>
#include <vector>

namespace stagecraft {

/// [gid] -> index into `timeline.events` of that op's compute (or GradSync) event. Linear; takes
/// the simulator's layout (op gid at event gid) without a search. Throws ValidationError
/// "timeline.mismatch" naming the device and position when the timeline is not of `schedule`.
std::vector<std::size_t> eventIndexByOp(const Schedule& schedule, const OpIndex& index,
                                        const Timeline& timeline);

} // namespace stagecraft
