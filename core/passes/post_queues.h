#pragma once
// The order a rank posts its transfers in where a post never blocks (stagecraft-run's executor on
// MPI), and so the order its prediction times (passes/run_timing.h): one rule, here, for both.
//
// Per peer, in program order: MPI matches the messages between two ranks in the order they were
// posted, so a transfer to one peer is never held back by an earlier one to another. A send is
// posted once its tensor is computed (its SlotUse::postFrom) or when the program reaches it; a
// receive when the program reaches it (with the receives from its peer before it) or, posting
// early, once the slot it lands in is free (its postFrom).

#include "passes/program.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stagecraft {

/// One peer's transfers of one kind, in program order, and how many are posted.
struct PeerQueue {
    int peer = -1;
    std::vector<std::int32_t> instructions; ///< indices into the rank's program
    std::size_t next = 0;                   ///< the first one not posted yet
};

/// A rank's sends, or its receives, per peer (peers ascending).
struct PostQueues {
    std::vector<PeerQueue> peers;

    /// Nothing posted: the start of an iteration.
    void restart() {
        for (PeerQueue& q : peers) q.next = 0;
    }
};

/// The instructions of `program` of `kind` (Send or Recv), per peer. Linear in the program.
PostQueues postQueues(const std::vector<Instruction>& program, InstrKind kind);

/// Posts the sends due once instruction `next` is the next to run: per peer in order, each whose
/// tensor is computed by then (`postFrom(index) <= next`) or that the program has reached. `post`
/// takes the send's index.
template <class PostFrom, class Post>
void postDueSends(PostQueues& sends, std::size_t next, PostFrom&& postFrom, Post&& post) {
    for (PeerQueue& q : sends.peers)
        for (; q.next < q.instructions.size(); ++q.next) {
            const auto at = std::size_t(q.instructions[q.next]);
            if (std::size_t(postFrom(at)) > next && at > next) break;
            post(at);
        }
}

/// Posts the receives due at instruction `at` (`current`): a receive instruction itself with the
/// receives from its peer before it (due: they must be posted now), and, posting `early`, every
/// receive in order whose slot is free from `at` on. `tryPost(index, due)` posts one, or returns
/// false when it cannot yet (its slot is still in use), which stops that peer's queue.
template <class PostFrom, class TryPost>
void postDueReceives(PostQueues& receives, std::size_t at, const Instruction& current, bool early,
                     PostFrom&& postFrom, TryPost&& tryPost) {
    const int duePeer = current.kind == InstrKind::Recv ? current.peer : -1;
    for (PeerQueue& q : receives.peers)
        for (; q.next < q.instructions.size(); ++q.next) {
            const auto r = std::size_t(q.instructions[q.next]);
            const bool due = q.peer == duePeer && r <= at;
            if (!due && (!early || std::size_t(postFrom(r)) > at)) break;
            if (!tryPost(r, due)) break;
        }
}

} // namespace stagecraft
