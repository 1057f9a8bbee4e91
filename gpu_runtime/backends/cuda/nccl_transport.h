#pragma once
// Transfers and all-reduces over NCCL: one 2-rank communicator and one stream per directed edge
// (a receive never queues behind unrelated sends, runtime.md B.2/B.8.3), one communicator and
// stream per collective this rank is in. The lane streams have the device's highest priority, so
// a communication kernel gets SMs even while GEMMs fill the device and its peer is not held up.
//
// Inside beginGroup/endGroup NCCL launches nothing until ncclGroupEnd, so the `end` events of
// the ops posted in a group are recorded right after it; waiting on such an op before the group
// is closed is refused instead of silently waiting on nothing.

#include "backends/cuda/comm_plan.h"
#include "backends/cuda/comm_transport.h"
#include "backends/cuda/cuda_handles.h"

#include <nccl.h>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace stagecraft::runtime::cuda {

class NcclTransport final : public CommTransport {
  public:
    explicit NcclTransport(int device);
    ~NcclTransport() override;

    std::string describe() const override;
    void setup(const LayerSetup& setup, DType type, MPI_Comm world, int streamPriority,
               RecordStamps& stamps) override;

    int sendLane(int peer, const std::string& label) const override;
    int recvLane(int peer, const std::string& label) const override;
    int collectiveLane(int collective, const std::string& label) const override;
    int lanes() const override { return int(m_lanes.size()); }
    cudaStream_t stream(int lane) const override { return m_lanes[std::size_t(lane)].stream.get(); }
    const std::string& laneName(int lane) const override;

    void beginGroup() override;
    void endGroup() override;
    bool groupOpen() const override { return m_groupDepth > 0; }

    void post(int request, const CommOp& op) override;
    void awaitEnqueued(int request, Clock::time_point deadline) override;
    cudaEvent_t completion(int request) const override;
    bool done(int request) override;
    bool deviceWorkEnqueued(int request) const override { return !m_inOpenGroup.count(request); }

    void progress() override {}
    bool hostIdle() override { return true; }
    std::string asyncError() override;
    void abort() noexcept override;
    void forget() override;
    void shutdown() noexcept override;

  private:
    struct Lane {
        std::size_t spec = 0; // index in m_plan
        ncclComm_t comm = nullptr;
        int peerInComm = -1; // the other member's rank in an edge communicator
        StreamHandle stream;
    };
    struct Deferred {
        int request;
        cudaEvent_t end;
        cudaStream_t stream;
    };
    void warmUp(const std::vector<std::uint64_t>& collectiveElements);
    void waitLanesIdle(Clock::time_point deadline, const char* what);

    int m_device;
    std::vector<CommSpec> m_plan;
    std::vector<ncclComm_t> m_comms; // per plan entry; nullptr where this rank is not a member
    std::vector<Lane> m_lanes;       // in plan order
    std::unordered_map<int, int> m_sendLane, m_recvLane, m_collectiveLane;
    ncclDataType_t m_type = ncclFloat32;
    std::size_t m_typeBytes = 4;
    int m_groupDepth = 0;
    std::vector<Deferred> m_deferred;
    std::unordered_set<int> m_inOpenGroup;
    std::unordered_map<int, cudaEvent_t> m_completion;
    bool m_aborted = false;
};

} // namespace stagecraft::runtime::cuda
