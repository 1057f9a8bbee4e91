// One backend for every rank, decided from every rank's probe: a job where only some ranks see a
// GPU, or a host with more ranks than GPUs under NCCL, is refused or falls back as a whole.
#include "plan/backend_choice.h"

#include <catch2/catch.hpp>

using namespace stagecraft::runtime;

namespace {

std::vector<RankProbe> probes(std::initializer_list<std::pair<int, int>> devicesAndLocalRank) {
    std::vector<RankProbe> out;
    for (const auto& [devices, local] : devicesAndLocalRank)
        out.push_back({devices, local, devices > 0 ? "" : "no CUDA driver"});
    return out;
}

} // namespace

TEST_CASE("every rank runs the backend all of them can", "[runtime][backend]") {
    const auto allGpus = probes({{2, 0}, {2, 1}, {2, 0}, {2, 1}});
    CHECK(chooseBackend(Backend::Auto, false, allGpus).backend == Backend::Cuda);
    CHECK(chooseBackend(Backend::Cuda, false, allGpus).refusal.empty());
    CHECK(chooseBackend(Backend::Host, false, allGpus).backend == Backend::Host);

    const auto some = probes({{1, 0}, {0, 0}, {1, 0}, {0, 0}});
    const BackendChoice autoSome = chooseBackend(Backend::Auto, false, some);
    CHECK(autoSome.backend == Backend::Host);
    CHECK(autoSome.refusal.empty());
    CHECK(autoSome.note ==
          "--backend auto: ranks 1, 3 found no CUDA device (no CUDA driver), so every rank uses "
          "the host backend");
    const BackendChoice cudaSome = chooseBackend(Backend::Cuda, false, some);
    CHECK(cudaSome.refusalId == "runtime.backend");
    CHECK(cudaSome.refusal == "--backend cuda: ranks 1, 3 found no CUDA device (no CUDA driver); every rank "
                              "needs one, or use --backend "
                              "host");
}

TEST_CASE("more ranks than GPUs on a host: refused under NCCL, said under --transport mpi",
          "[runtime][backend]") {
    const auto crowded = probes({{1, 0}, {1, 1}});
    const BackendChoice nccl = chooseBackend(Backend::Cuda, false, crowded);
    CHECK(nccl.refusalId == "runtime.gpus");
    CHECK(nccl.refusal ==
          "rank 1 would share a GPU with another rank of the same host (rank 1 is local rank 1 of a host "
          "with 1 "
          "GPU): NCCL cannot put two ranks of a communicator on one GPU; start at most one rank per "
          "GPU, or use --transport mpi");
    CHECK(chooseBackend(Backend::Auto, false, crowded).refusalId == "runtime.gpus");
    const BackendChoice staged = chooseBackend(Backend::Cuda, true, crowded);
    CHECK(staged.refusal.empty());
    CHECK(staged.backend == Backend::Cuda);
    CHECK_THAT(staged.note, Catch::Contains("--transport mpi stages their transfers through host memory"));
}
