#pragma once
// Structural and dynamic checks of a schedule: shape and placement are consistent, every
// (stage, micro-batch) op appears exactly once, each recompute (R) re-runs a forward in its
// stage's forward order, each device's order respects the data dependencies, and the schedule
// cannot deadlock when sends are asynchronous and receives block (the semantics of
// torch.distributed.pipelining's runtime and of our own).

#include "ir/schedule.h"
#include "size_limits.h"

#include <cstddef>
#include <string>
#include <vector>

namespace stagecraft {

struct Problem {
    std::string id;      ///< "schedule.shape", "schedule.op", "schedule.duplicate", "schedule.missing",
                         ///< "schedule.recompute", "schedule.order", "schedule.overlap",
                         ///< "schedule.deadlock"
    int device = -1;     ///< -1 when not tied to one device
    int position = -1;   ///< index in the device's order, -1 when not tied to one op
    std::string message; ///< names the op, its place and the rule
};

/// All problems, up to `limit` (the count of the rest is reported in a last "schedule.more" entry).
std::vector<Problem> findProblems(const Schedule& schedule, std::size_t limit = 50);

/// Throws ValidationError carrying the first problem (and how many more there are).
void validate(const Schedule& schedule);

} // namespace stagecraft
