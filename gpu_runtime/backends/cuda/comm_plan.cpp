#include "backends/cuda/comm_plan.h"

#include "exec/device_layer.h"

#include <algorithm>

namespace stagecraft::runtime::cuda {

int CommSpec::owner() const {
    return members.empty() ? -1 : *std::min_element(members.begin(), members.end());
}

int CommSpec::indexOf(int rank) const {
    const auto it = std::find(members.begin(), members.end(), rank);
    return it == members.end() ? -1 : int(it - members.begin());
}

namespace {

std::string rankList(const std::vector<int>& ranks) {
    std::string text;
    const std::size_t shown = std::min<std::size_t>(ranks.size(), 8);
    for (std::size_t i = 0; i < shown; ++i) text += (i ? "," : "") + std::to_string(ranks[i]);
    if (shown < ranks.size()) text += ",... " + std::to_string(ranks.size()) + " ranks";
    return text;
}

std::vector<std::vector<int>> checkedPeers(int ranks, const std::vector<std::vector<int>>& peersOfRank) {
    if (int(peersOfRank.size()) != ranks)
        throw BackendError("communicator plan: " + std::to_string(peersOfRank.size()) + " peer lists for " +
                           std::to_string(ranks) + " ranks");
    std::vector<std::vector<int>> sorted(peersOfRank);
    for (int r = 0; r < ranks; ++r) {
        auto& peers = sorted[std::size_t(r)];
        std::sort(peers.begin(), peers.end());
        for (std::size_t i = 0; i < peers.size(); ++i) {
            const int p = peers[i];
            if (p < 0 || p >= ranks || p == r)
                throw BackendError(
                    "communicator plan: rank " + std::to_string(r) + " lists peer " + std::to_string(p) +
                    ", which is " +
                    (p == r ? "itself" : "not a rank of this run (0.." + std::to_string(ranks - 1) + ")"));
            if (i > 0 && peers[i - 1] == p)
                throw BackendError("communicator plan: rank " + std::to_string(r) + " lists peer " +
                                   std::to_string(p) + " twice");
        }
    }
    for (int r = 0; r < ranks; ++r)
        for (int p : sorted[std::size_t(r)]) {
            const auto& back = sorted[std::size_t(p)];
            if (!std::binary_search(back.begin(), back.end(), r))
                throw BackendError("communicator plan: rank " + std::to_string(r) +
                                   " exchanges tensors with rank " + std::to_string(p) + " but rank " +
                                   std::to_string(p) + " does not list rank " + std::to_string(r) +
                                   " among its peers");
        }
    return sorted;
}

} // namespace

std::vector<CommSpec> planCommunicators(int ranks, const std::vector<std::vector<int>>& peersOfRank,
                                        const std::vector<std::vector<int>>& collectives) {
    if (ranks < 1) throw BackendError("communicator plan: " + std::to_string(ranks) + " ranks");
    const auto peers = checkedPeers(ranks, peersOfRank);
    std::vector<CommSpec> plan;
    for (int sender = 0; sender < ranks; ++sender)
        for (int receiver : peers[std::size_t(sender)]) {
            CommSpec edge;
            edge.kind = CommSpec::Kind::Edge;
            edge.members = {sender, receiver}; // the sender is rank 0 of the edge, the receiver rank 1
            edge.name = "edge " + std::to_string(sender) + "->" + std::to_string(receiver);
            plan.push_back(std::move(edge));
        }
    for (std::size_t c = 0; c < collectives.size(); ++c) {
        const auto& members = collectives[c];
        const std::string what = "collective " + std::to_string(c);
        if (members.empty()) throw BackendError("communicator plan: " + what + " has no ranks");
        std::vector<int> sorted(members);
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            if (sorted[i] < 0 || sorted[i] >= ranks)
                throw BackendError("communicator plan: " + what + " names rank " + std::to_string(sorted[i]) +
                                   ", which is not a rank of this run (0.." + std::to_string(ranks - 1) +
                                   ")");
            if (i > 0 && sorted[i - 1] == sorted[i])
                throw BackendError("communicator plan: " + what + " names rank " + std::to_string(sorted[i]) +
                                   " twice");
        }
        CommSpec spec;
        spec.kind = CommSpec::Kind::Collective;
        spec.collective = int(c);
        spec.members = members;
        spec.name = what + " (ranks " + rankList(members) + ")";
        plan.push_back(std::move(spec));
    }
    return plan;
}

} // namespace stagecraft::runtime::cuda
