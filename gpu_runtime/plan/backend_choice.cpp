#include "plan/backend_choice.h"

#include <algorithm>

namespace stagecraft::runtime {
namespace {

/// "ranks 1, 3 (no CUDA device)": the ranks that match, at most eight named.
template <class Match>
std::string ranksWhere(const std::vector<RankProbe>& ranks, Match match) {
    std::string text;
    int shown = 0, count = 0;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        if (!match(ranks[r])) continue;
        ++count;
        if (shown++ < 8) text += (text.empty() ? "" : ", ") + std::to_string(r);
    }
    if (count > 8) text += " and " + std::to_string(count - 8) + " more";
    return (count == 1 ? "rank " : "ranks ") + text;
}

} // namespace

BackendChoice chooseBackend(Backend requested, bool mpiTransport, const std::vector<RankProbe>& ranks) {
    BackendChoice out;
    if (requested == Backend::Host || ranks.empty()) return out;
    const auto withoutGpu = [](const RankProbe& p) { return p.devices <= 0; };
    const auto missing = std::count_if(ranks.begin(), ranks.end(), withoutGpu);
    if (missing > 0) {
        const auto first = std::find_if(ranks.begin(), ranks.end(), withoutGpu);
        const std::string why = ranksWhere(ranks, withoutGpu) + " found no CUDA device" +
                                (first->message.empty() ? "" : " (" + first->message + ")");
        if (requested == Backend::Cuda) {
            out.refusal = "--backend cuda: " + why + "; every rank needs one, or use --backend host";
            out.refusalId = "runtime.backend";
        } else {
            out.note = "--backend auto: " + why + ", so every rank uses the host backend";
        }
        return out;
    }
    out.backend = Backend::Cuda;
    const auto shares = [](const RankProbe& p) { return p.localRank >= p.devices; };
    if (std::any_of(ranks.begin(), ranks.end(), shares)) {
        const auto first = std::find_if(ranks.begin(), ranks.end(), shares);
        const std::string what =
            ranksWhere(ranks, shares) + " would share a GPU with another rank of the same host (rank " +
            std::to_string(first - ranks.begin()) + " is local rank " + std::to_string(first->localRank) +
            " of a host with " + std::to_string(first->devices) + " GPU" + (first->devices == 1 ? "" : "s") +
            ")";
        if (mpiTransport) {
            out.note = what +
                       ": --transport mpi stages their transfers through host memory, and ranks on one "
                       "GPU share its time";
        } else {
            out.backend = Backend::Host;
            out.refusal = what +
                          ": NCCL cannot put two ranks of a communicator on one GPU; start at most one rank "
                          "per GPU, or use --transport mpi";
            out.refusalId = "runtime.gpus";
        }
    }
    return out;
}

} // namespace stagecraft::runtime
