#pragma once
// DeviceLayer on CUDA: cuBLAS GEMMs and the layer's kernels on one compute stream, transfers and
// all-reduces on one stream per lane (NCCL, or host-staged MPI with --transport mpi), CUDA events
// for every record's start and end, NVTX ranges named by the labels. Nothing here blocks the host
// except wait() on a host-staged receive, finish() and anchor().
//
// Ordering (runtime.md B.9): a send or all-reduce stream first waits for an event recorded on the
// compute stream when it is posted (it carries what was computed before it); a receive stream
// waits only for its buffer's last compute (so an early receive is not held up by unrelated
// compute); compute waits for a receive with cudaStreamWaitEvent on the receive's end event.
//
// Threads: every call may come from any one thread at a time (each binds the layer's device
// first). abort() too: ncclCommAbort frees the communicators, so no other call may run at the same
// time; the executor calls it after a DeadlineExceeded or BackendError on its own thread.

#include "backends/cuda/comm_transport.h"
#include "backends/cuda/cublas_gemm.h"
#include "backends/cuda/cuda_events.h"
#include "backends/cuda/cuda_handles.h"
#include "backends/cuda/device_buffers.h"
#include "backends/cuda_module.h"

#include <memory>
#include <string>
#include <vector>

namespace stagecraft::runtime::cuda {

class CudaLayer final : public DeviceLayer {
  public:
    /// Selects device localRank % devices and creates the compute stream, the buffer pool and
    /// cuBLAS. Throws BackendError when there is no usable device.
    explicit CudaLayer(const CudaLayerOptions& options);
    ~CudaLayer() override;

    std::string describe() const override;
    std::size_t elementBytes() const override;

    void setup(const LayerSetup& setup) override;
    void anchor() override;
    Clock::time_point anchorTime() const override;
    void reanchor() override;

    Buffer allocate(std::uint64_t elements) override;
    void release(Buffer buffer) override;
    std::uint64_t allocations() const override { return m_allocations; }
    void reuse(Buffer buffer) override;
    std::uint64_t residentBytes(const std::vector<Buffer>& buffers) override;

    void compute(const ComputeWork& work) override;

    void beginGroup() override;
    void endGroup() override;
    Request send(const Transfer& transfer) override;
    Request recv(const Transfer& transfer) override;
    Request allReduce(const AllReduce& reduce) override;

    void wait(Request request, Clock::time_point deadline) override;
    void progress() override;
    bool completed(Request request) override;
    bool recordDone(std::int32_t record) override;
    std::string asyncError() override;
    void finish(Clock::time_point deadline) override;
    void times(std::vector<Stamp>& stamps) override;
    void abort(std::chrono::milliseconds limit) noexcept override;

  private:
    struct ComputeRecord {
        std::string label;
        cudaEvent_t end;
    };
    /// Makes the layer's device current on this thread.
    void bindDevice() const;
    /// bindDevice(), and throws unless setup ran and abort did not.
    void enter(const std::string& what);
    Request post(CommOp op, const Operand& data);
    void waitFor(Request request, Clock::time_point deadline, const std::string& what);
    void enqueueCompute(const ComputeWork& work);
    void recordGroupStarts();
    void warmKernels();
    std::vector<cudaStream_t> allStreams() const;
    std::string pendingWork();
    bool idleAndHealthy() noexcept;
    /// Aborts the communicators (one group call) on this thread.
    void abortNow() noexcept;
    /// True while a request of this iteration on `buffer` may still enqueue device work.
    bool awaitsDeviceWork(Buffer buffer) const;
    /// Frees the buffers of m_releaseLater whose requests have all enqueued their device work.
    void releaseReady();

    CudaLayerOptions m_options;
    int m_device = 0;
    int m_devices = 0;
    std::string m_deviceName;
    int m_commPriority = 0;
    StreamHandle m_compute;
    EventHandle m_mark; // the compute stream's position when a send or all-reduce is posted
    std::unique_ptr<DeviceBuffers> m_buffers;
    std::unique_ptr<CublasGemm> m_gemm;
    RecordStamps m_stamps;
    std::unique_ptr<CommTransport> m_comm;
    MPI_Comm m_world = MPI_COMM_NULL; // the layer's own duplicate of MPI_COMM_WORLD
    std::vector<CommOp> m_requests;   // this iteration's; a Request is an index
    std::vector<ComputeRecord> m_computes;
    std::vector<Buffer> m_releaseLater;    // released while a request on them may still add device work
    std::vector<std::int32_t> m_requestOf; // [record]: this iteration's request, -1 none
    /// Start events of the open group's transfers: recorded at endGroup, once every stream of the
    /// group has reached its place, because NCCL launches the group as one after all of them.
    struct GroupStart {
        cudaStream_t stream;
        cudaEvent_t start;
    };
    std::vector<GroupStart> m_groupStarts;
    std::vector<EventHandle> m_groupMarks; // one per stream of a group, reused
    std::uint64_t m_allocations = 0;
    bool m_setupDone = false;
    bool m_aborted = false;
};

} // namespace stagecraft::runtime::cuda
