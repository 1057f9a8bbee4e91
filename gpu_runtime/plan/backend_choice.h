#pragma once
// Which backend every rank runs, decided once from what every rank found (one collective gathers
// the probes before any rank touches NCCL): a job where only some ranks see a GPU, or where a
// host has more ranks than GPUs for NCCL, is refused or falls back on every rank at once, never
// left to hang in a communicator's bootstrap. Pure: the session gathers, this decides.

#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft::runtime {

enum class Backend : std::uint8_t { Host, Cuda, Auto };

/// What one rank found.
struct RankProbe {
    int devices = 0;     ///< CUDA devices it can use
    int localRank = 0;   ///< its position among the ranks of its host
    std::string message; ///< why devices is 0, when it is
};

struct BackendChoice {
    Backend backend = Backend::Host; ///< Host or Cuda, the same on every rank
    std::string refusal;             ///< non-empty: bad input, every rank ends with status 2
    std::string refusalId;           ///< "runtime.backend", "runtime.gpus"
    std::string note;                ///< said once by rank 0 (a fallback, shared GPUs)
};

/// `requested` from --backend; `mpiTransport`: --transport mpi (ranks may share a GPU).
BackendChoice chooseBackend(Backend requested, bool mpiTransport, const std::vector<RankProbe>& ranks);

} // namespace stagecraft::runtime
