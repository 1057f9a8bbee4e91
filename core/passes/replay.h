#pragma once
// Static replay of per-rank programs: runs every rank's instructions in order with no durations
// and proves that all of them finish, under the blocking rules of the transport a runtime uses:
//
//  - NCCL: a Send and its Recv complete only together; each blocks its rank until the peer has
//    posted the other. Transfers between two ranks in one direction are matched first-in
//    first-out (one communicator is one FIFO, NCCL has no tags), so the n-th send from A to B
//    must be the n-th receive of B from A: a different tag or size is refused. A group is posted
//    at once and the rank goes on when all its transfers are done.
//  - MPI: sends are non-blocking (MPI_Isend); a receive blocks until the matching send (same
//    source and tag) has been posted; a group waits for its receives.
//
// Under both, GradSync posts the stage's all-reduce on the rank's collective lane (one FIFO per
// rank): a collective starts once it is first on the lane of every rank of its group. Optimizer
// waits for its stage's sync; Wait for its instruction; a compute op needs its inputs (computed
// earlier on this rank or received) and a send the tensor it sends. Linear in the number of
// instructions. A refusal names the ring of ranks that wait on each other, each with its
// instruction and position.

#include "passes/program.h"

#include <string>
#include <vector>

namespace stagecraft {

enum class CommSemantics : std::uint8_t { Nccl, Mpi };

/// "NCCL", "MPI".
const char* semanticsName(CommSemantics semantics);

struct ReplayOptions {
    CommSemantics semantics = CommSemantics::Nccl;
    /// Post a group's transfers together (our runtime). False: one at a time, in program order,
    /// as torch's runtime posts one batch per action.
    bool groups = true;
};

/// A rank that could not finish: where it stopped and for whom.
struct WaitingRank {
    int rank = -1;
    int position = -1;       ///< index of the instruction it is stuck on (its lane's, once finished)
    std::string instruction; ///< describeInstruction of it
    int waitsFor = -1;       ///< the rank it waits for; -1 when it waits for itself (an order error)
    std::string reason;      ///< one sentence
};

struct ReplayResult {
    /// Empty when every program finished; else "lower.deadlock", "lower.mismatch",
    /// "lower.unmatched" or "lower.order".
    std::string id;
    std::string message;
    std::vector<WaitingRank> blocked; ///< every rank that could not finish
    std::vector<int> ring;            ///< ranks that wait on each other in a ring (deadlock)
    std::vector<Match> completed;     ///< transfers in the order they completed

    bool ok() const { return id.empty(); }
};

ReplayResult replay(const Lowered& lowered, const ReplayOptions& options = {});

/// Throws ValidationError(result.id, "rank R", result.message) when the replay fails.
void requireDeadlockFree(const Lowered& lowered, const ReplayOptions& options = {});

} // namespace stagecraft
