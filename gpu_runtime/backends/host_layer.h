#pragma once
// The host backend: fp32 GEMMs through OpenBLAS (one thread per rank: ranks share the cores),
// point-to-point transfers with MPI_Isend/MPI_Irecv under the lowering's tags, gradient syncs
// with MPI_Iallreduce, times from steady_clock. Completions are found by polling (MPI_Test), so
// every wait has a deadline and a dead or hung peer ends in a message, never a hang. MPI is also
// progressed while the rank computes (between GEMMs) and sleeps (the sleep workload polls in short
// sleeps), so a transfer takes its transfer time, not the time until this rank's next MPI call.
// Between instructions it is not: any MPI call progresses every transfer, and the receiver of a
// large message copies it inside that call (a 4 MiB copy takes about 200 µs). Ranks of a pipeline
// end their ops together, so a tensor sent at the end of an op arrives as the receiver's op ends;
// copied there, it would delay the receiver's next op, copied in that op's sleep it costs nothing.
// So between instructions the layer only posts sends; receives wait for the next progress point.
// Buffers are page-aligned, so that their resident memory can be measured (mincore).

#include "exec/device_layer.h"

#include <memory>
#include <mpi.h>
#include <vector>

namespace stagecraft::runtime {

class HostLayer final : public DeviceLayer {
  public:
    HostLayer();
    ~HostLayer() override;

    std::string describe() const override;
    std::size_t elementBytes() const override { return sizeof(float); }
    void setup(const LayerSetup& setup) override;
    void anchor() override;
    Clock::time_point anchorTime() const override { return m_anchor; }
    void reanchor() override {}
    Buffer allocate(std::uint64_t elements) override;
    void release(Buffer buffer) override;
    std::uint64_t allocations() const override { return m_allocations; }
    void reuse(Buffer) override {} // the executor waited for the buffer's transfers
    std::uint64_t residentBytes(const std::vector<Buffer>& buffers) override;
    void compute(const ComputeWork& work) override;
    void beginGroup() override {}
    void endGroup() override {}
    Request send(const Transfer& transfer) override;
    Request recv(const Transfer& transfer) override;
    Request allReduce(const AllReduce& reduce) override;
    void wait(Request request, Clock::time_point deadline) override;
    /// Between instructions: nothing (see progressTransfers).
    void progress() override {}
    bool completed(Request request) override;
    bool recordDone(std::int32_t record) override;
    std::string asyncError() override { return {}; }
    void finish(Clock::time_point deadline) override;
    void times(std::vector<Stamp>& stamps) override;
    void abort(std::chrono::milliseconds limit) noexcept override;

  private:
    struct Pending {
        MPI_Request request = MPI_REQUEST_NULL;
        std::int32_t record = -1;
        Buffer buffer = -1;
        bool done = false;
        std::int32_t peer = -1; ///< -1: a collective
        bool isSend = false;
        /// A receive not handed to MPI yet (postDeferred): between instructions its MPI_Irecv
        /// would copy a tensor that has already arrived, on the path of the next instruction.
        bool deferred = false;
        void* data = nullptr;
        int count = 0;
        int tag = 0;
    };
    struct FreeDeleter {
        void operator()(float* p) const noexcept;
    };
    double now() const;
    /// "PP:0RECV_B0 from rank 1": the record's label and its peer.
    std::string labelOf(const Pending& pending) const;
    /// Sleeps until `until` (µs since the anchor) in short steps, progressing MPI between them,
    /// and spins the last ~50 µs (nanosleep overshoots). Near the end only `next` is progressed.
    void sleepProgressing(double until, const std::vector<Request>& next);
    float* data(const Operand& operand, std::uint64_t elements, const char* what);
    /// Every deferred receive handed to MPI, then every open request tested: where a tensor's
    /// copy costs nothing (inside an op's sleep, between GEMMs) or is what the rank waits for.
    void progressTransfers();
    /// Hands every deferred receive to MPI.
    void postDeferred();
    void handToMpi(Pending& receive);
    Request post(Pending pending);
    Request postTransfer(const Transfer& transfer, bool isSend);
    /// The request's entry; BackendError for an unknown one.
    Pending& pendingAt(Request request);
    bool test(Request request);
    /// test() of one request: a deferred receive is posted alone, the others stay deferred.
    bool testOne(Request request);
    void freeBuffer(Buffer buffer);
    std::string pendingSummary() const;

    MPI_Comm m_p2p = MPI_COMM_NULL;
    std::vector<MPI_Comm> m_collectives; ///< MPI_COMM_NULL where this rank is not a member
    int m_rank = 0;
    long m_tagBound = 32767;
    Clock::time_point m_anchor = Clock::now();

    std::vector<std::unique_ptr<float, FreeDeleter>> m_buffers;
    std::uint64_t m_allocations = 0;
    std::vector<std::string> m_labels; ///< [record]: the label it was posted with
    std::vector<Request> m_requestOf;  ///< [record]: this iteration's request, -1 none
    std::vector<std::uint64_t> m_sizes;
    std::vector<int> m_inFlight;      ///< [buffer]: posted transfers not yet complete
    std::vector<char> m_releaseLater; ///< [buffer]: released while a transfer still used it
    std::vector<Buffer> m_freeIds;

    std::vector<Pending> m_pending;  ///< this iteration's requests; Request indexes it
    std::vector<Request> m_open;     ///< those not complete yet
    std::vector<Request> m_deferred; ///< receives not handed to MPI yet, in program order
    std::vector<Stamp> m_stamps;     ///< [record]
};

} // namespace stagecraft::runtime
