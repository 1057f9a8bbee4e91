#include "backends/cuda/plan_exchange.h"

#include "backends/cuda/mpi_check_cuda.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

namespace stagecraft::runtime::cuda {
namespace {

// FNV-1a over what every rank must agree on.
struct Fingerprint {
    std::uint64_t value = 1469598103934665603ull;
    void add(std::uint64_t x) {
        for (int i = 0; i < 8; ++i) {
            value ^= (x >> (8 * i)) & 0xFF;
            value *= 1099511628211ull;
        }
    }
};

} // namespace

void raiseOnAnyRank(const std::string& problem, MPI_Comm world) {
    int rank = 0;
    SC_MPI_CHECK(MPI_Comm_rank(world, &rank));
    const int mine = problem.empty() ? INT_MAX : rank;
    int first = INT_MAX;
    SC_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, world));
    if (first == INT_MAX) return;
    if (!problem.empty()) throw BackendError(problem);
    throw BackendError("rank " + std::to_string(first) +
                       " cannot set up the CUDA layer (its own message says why)");
}

std::vector<CommSpec> gatherCommPlan(const LayerSetup& setup, MPI_Comm world) {
    int rank = 0, size = 0;
    SC_MPI_CHECK(MPI_Comm_rank(world, &rank));
    SC_MPI_CHECK(MPI_Comm_size(world, &size));
    std::string problem;
    if (setup.rank != rank || setup.ranks != size)
        problem = "LayerSetup says rank " + std::to_string(setup.rank) + " of " +
                  std::to_string(setup.ranks) + " but MPI_COMM_WORLD says rank " + std::to_string(rank) +
                  " of " + std::to_string(size);
    raiseOnAnyRank(problem, world);

    Fingerprint fingerprint;
    fingerprint.add(std::uint64_t(setup.ranks));
    for (char c : setup.dtype) fingerprint.add(std::uint64_t(c));
    fingerprint.add(setup.collectives.size());
    for (const auto& collective : setup.collectives) {
        fingerprint.add(collective.size());
        for (int member : collective) fingerprint.add(std::uint64_t(std::int64_t(member)));
    }
    std::uint64_t low = 0, high = 0;
    SC_MPI_CHECK(MPI_Allreduce(&fingerprint.value, &low, 1, MPI_UINT64_T, MPI_MIN, world));
    SC_MPI_CHECK(MPI_Allreduce(&fingerprint.value, &high, 1, MPI_UINT64_T, MPI_MAX, world));
    if (low != high)
        throw BackendError("the ranks were given different runs: their dtype or collectives differ (rank " +
                           std::to_string(rank) + " has dtype " + setup.dtype + " and " +
                           std::to_string(setup.collectives.size()) + " collectives)");

    const int count = int(setup.peers.size());
    std::vector<int> counts(std::size_t(size), 0);
    SC_MPI_CHECK(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, world));
    std::vector<int> displacements(std::size_t(size), 0);
    int total = 0;
    for (int r = 0; r < size; ++r) {
        displacements[std::size_t(r)] = total;
        total += counts[std::size_t(r)];
    }
    std::vector<int> all(std::size_t(std::max(total, 1)), 0);
    std::vector<int> mine(setup.peers);
    if (mine.empty()) mine.push_back(0); // a valid address; its count is 0
    SC_MPI_CHECK(MPI_Allgatherv(mine.data(), count, MPI_INT, all.data(), counts.data(), displacements.data(),
                                MPI_INT, world));
    std::vector<std::vector<int>> peersOfRank(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) {
        const auto begin = all.begin() + displacements[std::size_t(r)];
        peersOfRank[std::size_t(r)].assign(begin, begin + counts[std::size_t(r)]);
    }
    return planCommunicators(size, peersOfRank, setup.collectives);
}

} // namespace stagecraft::runtime::cuda
