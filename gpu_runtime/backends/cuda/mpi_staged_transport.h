#pragma once
// --transport mpi: transfers and all-reduces through pinned host buffers and MPI, for several
// ranks on one GPU (NCCL cannot put two ranks of one communicator on one device).
//
// A send (or all-reduce) copies device -> host on its lane's stream once compute has produced the
// data; when the copy is done the host posts MPI_Isend (MPI_Iallreduce on the collective's own
// communicator, made with MPI_Comm_split in list order). A receive posts MPI_Irecv at once; when
// it completes the host copies host -> device on the lane's stream and records the op's end
// there, which compute then waits on. Only the host moves these steps along (progress, wait,
// finish), so wait() on a staged receive blocks the host until the data is on its way to the
// device, as the host backend's wait does.

#include "backends/cuda/comm_transport.h"
#include "backends/cuda/cuda_handles.h"
#include "backends/cuda/pinned_blocks.h"

#include <map>
#include <unordered_map>
#include <vector>

namespace stagecraft::runtime::cuda {

class MpiStagedTransport final : public CommTransport {
  public:
    MpiStagedTransport() = default;
    ~MpiStagedTransport() override;

    std::string describe() const override { return "host-staged MPI"; }
    void setup(const LayerSetup& setup, DType type, MPI_Comm world, int streamPriority,
               RecordStamps& stamps) override;

    int sendLane(int peer, const std::string& label) const override;
    int recvLane(int peer, const std::string& label) const override;
    int collectiveLane(int collective, const std::string& label) const override;
    int lanes() const override { return int(m_lanes.size()); }
    cudaStream_t stream(int lane) const override { return m_lanes[std::size_t(lane)].stream.get(); }
    const std::string& laneName(int lane) const override { return m_lanes[std::size_t(lane)].name; }

    // MPI posts every operation at once; a group has nothing to fuse.
    void beginGroup() override {}
    void endGroup() override {}
    bool groupOpen() const override { return false; }

    void post(int request, const CommOp& op) override;
    void awaitEnqueued(int request, Clock::time_point deadline) override;
    cudaEvent_t completion(int request) const override;
    bool done(int request) override;
    bool deviceWorkEnqueued(int request) const override;

    void progress() override;
    bool hostIdle() override;
    std::string asyncError() override { return {}; }
    void abort() noexcept override {}
    void forget() override;
    void shutdown() noexcept override;

  private:
    enum class Phase : std::uint8_t { ToHost, OnWire, ToDevice, Done };
    struct Lane {
        int peer = -1;                 // edges
        MPI_Comm comm = MPI_COMM_NULL; // collectives: the split communicator
        StreamHandle stream;
        std::string name;
    };
    struct Staged {
        CommOp op;
        Phase phase = Phase::ToHost;
        std::size_t bytes = 0;
        PinnedBlocks::Block host;
        EventHandle copied; // device -> host copy done (sends, all-reduces)
        std::vector<MPI_Request> mpi;
    };
    void startMpi(Staged& s);
    bool advance(Staged& s);
    EventHandle takeEvent();

    DType m_type = DType::F32;
    RecordStamps* m_stamps = nullptr;
    MPI_Comm m_p2p = MPI_COMM_NULL;
    int m_tagUpperBound = 32767;
    MPI_Op m_fp16Sum = MPI_OP_NULL, m_bf16Sum = MPI_OP_NULL;
    std::vector<Lane> m_lanes;
    std::unordered_map<int, int> m_sendLane, m_recvLane, m_collectiveLane;
    std::map<int, Staged> m_ops; // by request id, i.e. in posting order
    PinnedBlocks m_pinned;
    std::vector<EventHandle> m_spareEvents;
};

} // namespace stagecraft::runtime::cuda
