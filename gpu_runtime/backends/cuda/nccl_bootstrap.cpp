#include "backends/cuda/nccl_bootstrap.h"

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/mpi_check_cuda.h"
#include "exec/device_layer.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <unistd.h>

namespace stagecraft::runtime::cuda {
namespace {

struct GpuIdentity {
    unsigned char uuid[16];
    char busId[32];
    char host[64];
};

} // namespace

void checkDistinctGpus(const std::vector<CommSpec>& plan, int device, MPI_Comm world) {
    GpuIdentity mine{};
    cudaDeviceProp props{};
    SC_CUDA_CHECK(cudaGetDeviceProperties(&props, device));
    std::memcpy(mine.uuid, props.uuid.bytes, sizeof mine.uuid);
    SC_CUDA_CHECK(cudaDeviceGetPCIBusId(mine.busId, int(sizeof mine.busId), device));
    if (gethostname(mine.host, sizeof mine.host - 1) != 0) std::strcpy(mine.host, "?");
    int size = 0;
    SC_MPI_CHECK(MPI_Comm_size(world, &size));
    std::vector<GpuIdentity> all(static_cast<std::size_t>(size));
    SC_MPI_CHECK(
        MPI_Allgather(&mine, int(sizeof mine), MPI_BYTE, all.data(), int(sizeof mine), MPI_BYTE, world));
    // Every rank checks every communicator, so all of them fail together.
    for (const CommSpec& spec : plan) {
        std::map<std::string, int> firstOnGpu;
        for (int member : spec.members) {
            const GpuIdentity& gpu = all[std::size_t(member)];
            const std::string key(reinterpret_cast<const char*>(gpu.uuid), sizeof gpu.uuid);
            const auto [it, fresh] = firstOnGpu.emplace(key, member);
            if (fresh) continue;
            throw BackendError(
                "ranks " + std::to_string(it->second) + " and " + std::to_string(member) + " both use GPU " +
                gpu.busId + " on host " + gpu.host + ", but NCCL cannot make " + spec.name +
                " with two ranks on one GPU: start one rank per GPU, or run with --transport mpi");
        }
    }
}

std::vector<ncclComm_t> initNcclFromMpi(const std::vector<CommSpec>& plan, MPI_Comm world) {
    int rank = 0, size = 0;
    SC_MPI_CHECK(MPI_Comm_rank(world, &rank));
    SC_MPI_CHECK(MPI_Comm_size(world, &size));
    constexpr int kIdBytes = int(sizeof(ncclUniqueId));

    std::vector<ncclUniqueId> owned;
    std::vector<int> counts(std::size_t(size), 0);
    for (const CommSpec& spec : plan) {
        counts[std::size_t(spec.owner())] += kIdBytes;
        if (spec.owner() != rank) continue;
        ncclUniqueId id;
        SC_NCCL_CHECK(ncclGetUniqueId(&id));
        owned.push_back(id);
    }
    std::vector<int> displacements(std::size_t(size), 0);
    int total = 0;
    for (int r = 0; r < size; ++r) {
        displacements[std::size_t(r)] = total;
        total += counts[std::size_t(r)];
    }
    std::vector<char> ids(std::size_t(std::max(total, 1)));
    // A rank that creates no communicator still passes a valid buffer (of 0 bytes to send).
    ncclUniqueId emptySendBuffer{};
    const void* send = owned.empty() ? static_cast<const void*>(&emptySendBuffer) : owned.data();
    SC_MPI_CHECK(MPI_Allgatherv(send, counts[std::size_t(rank)], MPI_BYTE, ids.data(), counts.data(),
                                displacements.data(), MPI_BYTE, world));

    std::vector<ncclComm_t> comms(plan.size(), nullptr);
    std::vector<int> takenFrom(std::size_t(size), 0);
    try {
        SC_NCCL_CHECK(ncclGroupStart());
        ncclResult_t failure = ncclSuccess;
        std::string failedCall;
        for (std::size_t i = 0; i < plan.size(); ++i) {
            const CommSpec& spec = plan[i];
            const int owner = spec.owner();
            ncclUniqueId id;
            std::memcpy(&id, ids.data() + displacements[std::size_t(owner)] + takenFrom[std::size_t(owner)],
                        kIdBytes);
            takenFrom[std::size_t(owner)] += kIdBytes;
            const int index = spec.indexOf(rank);
            if (index < 0) continue;
            ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
            config.commName = spec.name.c_str(); // NCCL_DEBUG names the communicator
            const ncclResult_t result =
                ncclCommInitRankConfig(&comms[i], int(spec.members.size()), id, index, &config);
            if (result != ncclSuccess && failure == ncclSuccess) {
                failure = result;
                failedCall = "ncclCommInitRankConfig for " + spec.name;
            }
        }
        // Close the group even after a failure inside it, so that NCCL's group state is reset.
        const ncclResult_t end = ncclGroupEnd();
        if (failure != ncclSuccess) throwNcclError(failure, failedCall.c_str(), __FILE__, __LINE__);
        if (end != ncclSuccess)
            throwNcclError(end, "ncclGroupEnd() after ncclCommInitRankConfig", __FILE__, __LINE__);
    } catch (...) {
        for (ncclComm_t comm : comms)
            if (comm) SC_NCCL_LOG(ncclCommAbort(comm));
        throw;
    }
    return comms;
}

} // namespace stagecraft::runtime::cuda
