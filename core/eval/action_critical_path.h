#pragma once
// The critical path of one iteration of executed programs, measured (a torch run's ranges) or
// timed (passes/program_timing.h): the chain of actions and transfers that ends last, walked back
// from its end, and what it is made of. A rank's own totals say where its time went; this says
// which of that time decided the makespan (on the 4-rank torch runs, transfers and posts half of
// it or more, docs/fidelity.md). sim/critical_path.h is the op-level chain of a schedule's
// simulated timeline, which has no posts nor framework gaps.

#include "project/action_path_parts.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stagecraft {

/// One action of a rank, in the rank's order: when it began (after the framework's gap before it),
/// when its own work began (after waiting for a received input or for its transfer to complete),
/// and when it ended; where it waited for a transfer, the post of that transfer that came later.
struct ActionStep {
    enum class Part : std::uint8_t { Compute, Comm, Bookkeeping };
    Part part = Part::Compute;
    double start = 0, begin = 0, end = 0;
    int fromRank = -1;        ///< the rank of the later post, or -1: no transfer awaited
    std::size_t fromStep = 0; ///< that post's step on its rank
};

/// The critical path of `ranks` (each rank's steps in its order), from `t0`: from the step that
/// ends last, back through each rank's previous step, except where a step waited more than
/// `waited` µs for a transfer whose later post ended after the rank's previous action: there the
/// path follows the transfer to that post. A wait of at most `waited` is the waiting call's own
/// time (comm); a longer one whose posts came before the rank's previous action ended (the data
/// was late, not its producer), are not known, or end after the wait (clocks of different hosts)
/// is a wait not followed.
ActionPathParts actionCriticalPath(const std::vector<std::vector<ActionStep>>& ranks, double t0,
                                   double waited);

/// The median of each part over `paths` (iterations of a run, or draws); zeros for none.
ActionPathParts medianActionPath(const std::vector<ActionPathParts>& paths);

} // namespace stagecraft
