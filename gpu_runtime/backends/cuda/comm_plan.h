#pragma once
// Every communicator of a run, in the one order that all ranks create them. Pure C++ (the MPI
// exchange that feeds it is in plan_exchange.h) so that the order and the checks are tested on
// the host.
//
// NCCL point-to-point operations block their stream until matched, and one communicator is one
// FIFO: a receive queued behind unrelated sends waits for them (runtime.md B.2, B.8.3). So every
// directed edge sender -> receiver gets its own 2-rank communicator (and stream), and every
// collective of LayerSetup::collectives its own. Creating and warming them needs both (or all)
// members at once, so every rank walks the same list: the directed edges by sender, then
// receiver, ascending, then the collectives in list order; a rank acts only on those it is in.

#include <string>
#include <vector>

namespace stagecraft::runtime::cuda {

struct CommSpec {
    enum class Kind : unsigned char { Edge, Collective };
    Kind kind = Kind::Edge;
    int collective = -1;      ///< index in LayerSetup::collectives (Kind::Collective)
    std::vector<int> members; ///< world ranks; a member's rank in the communicator is its position
    std::string name;         ///< "edge 2->3", "collective 0 (ranks 0,2)"; NCCL_DEBUG shows it too

    /// The member that makes the communicator's unique id: the smallest rank, so the bootstrap
    /// root runs on a host of the communicator rather than always on rank 0.
    int owner() const;
    /// Position of `rank` in `members`, -1 when it is not a member.
    int indexOf(int rank) const;
};

/// The communicators of a run. `peersOfRank[r]` is rank r's LayerSetup::peers. Throws
/// BackendError when a peer list is not symmetric (r lists p but p does not list r), names a rank
/// out of range or itself, or a collective is empty, repeats a rank or names one out of range:
/// every rank sees the same input and so fails with the same message.
std::vector<CommSpec> planCommunicators(int ranks, const std::vector<std::vector<int>>& peersOfRank,
                                        const std::vector<std::vector<int>>& collectives);

} // namespace stagecraft::runtime::cuda
