#pragma once
// What the critical path of executed programs is made of (eval/action_critical_path.h walks it):
// a plain record, here because a fit file keeps its fitted run's path (project/runtime_fit_file.h).

namespace stagecraft {

/// What an iteration's critical path is made of, µs; the parts add up to the makespan. Over
/// several iterations (or draws of a prediction) each part is the median of its own, so the
/// medians need not add up to the median makespan.
struct ActionPathParts {
    double compute = 0;   ///< the ops' own work
    double transfers = 0; ///< from a transfer's later post to its arrival, where a rank waited
    double comm = 0;      ///< posting sends and receives, waiting for sends, short receive waits
    /// Waits the path does not follow across: for data posted before the waiting rank's previous
    /// action ended, or whose posts the trace does not show (torch's GPipe records none); the path
    /// goes on with that previous action.
    double waits = 0;
    double bookkeeping = 0; ///< gradient syncs, unshard, reshard
    double gaps = 0;        ///< the framework between actions, and before a rank's first one
    double hops = 0;        ///< transfers on the path
    double total() const { return compute + transfers + comm + waits + bookkeeping + gaps; }
    friend bool operator==(const ActionPathParts&, const ActionPathParts&) = default;
};

} // namespace stagecraft
