#pragma once
// What carries the layer's transfers and all-reduces: NCCL (nccl_transport.h) or, with
// --transport mpi, MPI through pinned host buffers (mpi_staged_transport.h). The layer owns the
// requests, buffers, stamps and the compute stream; a transport owns its communicators and one
// stream per lane (a directed edge or a collective) and turns a posted op into device work.

#include "backends/cuda/dtype.h"
#include "exec/device_layer.h"

#include <cstdint>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <string>

namespace stagecraft::runtime::cuda {

class RecordStamps;

/// One posted send, receive or all-reduce. Before post() the layer has made the lane's stream
/// wait for the data (send, all-reduce: everything computed so far; receive: the buffer's last
/// compute) and recorded `start` on it.
struct CommOp {
    enum class Kind : std::uint8_t { Send, Recv, AllReduce };
    Kind kind = Kind::Send;
    std::string label;
    std::int32_t record = -1;
    int lane = -1;
    Buffer buffer = -1;   ///< the layer's buffer that `data` lies in
    void* data = nullptr; ///< device address
    std::uint64_t elements = 0;
    std::int64_t tag = -1;
    cudaEvent_t end =
        nullptr; ///< the transport records it on the lane's stream when the op's device work ends
};

class CommTransport {
  public:
    virtual ~CommTransport() = default;

    /// "NCCL 2.28.9" or "host-staged MPI".
    virtual std::string describe() const = 0;
    /// Creates every communicator and lane stream and warms each once; collective over all
    /// ranks of `world`. `stamps` receives host-clock stamps.
    virtual void setup(const LayerSetup& setup, DType type, MPI_Comm world, int streamPriority,
                       RecordStamps& stamps) = 0;

    /// Lanes of this rank; each throws BackendError naming `label` when the peer or the collective
    /// is not one of this rank's.
    virtual int sendLane(int peer, const std::string& label) const = 0;
    virtual int recvLane(int peer, const std::string& label) const = 0;
    virtual int collectiveLane(int collective, const std::string& label) const = 0;
    virtual int lanes() const = 0;
    virtual cudaStream_t stream(int lane) const = 0;
    virtual const std::string& laneName(int lane) const = 0;

    virtual void beginGroup() = 0;
    virtual void endGroup() = 0;
    virtual bool groupOpen() const = 0;

    /// Starts `op`; `request` is the layer's id for it.
    virtual void post(int request, const CommOp& op) = 0;
    /// Returns once `request`'s completion is on the device (its `end` recorded, or for a staged
    /// send its completion seen on the host), so that a stream may wait for it; throws
    /// DeadlineExceeded at `deadline` and BackendError when that cannot happen (NCCL: the request
    /// is in a group that is still open).
    virtual void awaitEnqueued(int request, Clock::time_point deadline) = 0;
    /// The event a stream waits on for `request`, or nullptr when it completed on the host.
    virtual cudaEvent_t completion(int request) const = 0;
    /// True once `request` has fully completed (for finish's list of what is pending).
    virtual bool done(int request) = 0;
    /// True once all of `request`'s device work is on its lane's stream, so that an event recorded
    /// there later follows it (NCCL: unless its group is still open; host-staged: once the copy
    /// to the device of a receive or all-reduce is enqueued). A buffer is freed only then.
    virtual bool deviceWorkEnqueued(int request) const = 0;

    /// Moves host-staged work along; never blocks.
    virtual void progress() = 0;
    /// True when no host-side work is left.
    virtual bool hostIdle() = 0;
    /// A communicator's asynchronous error as text, "" when there is none.
    virtual std::string asyncError() = 0;
    /// Stops every communicator so that no rank hangs in it.
    virtual void abort() noexcept = 0;
    /// Forgets the requests of the finished iteration.
    virtual void forget() = 0;
    /// Releases communicators in the order all ranks use (only when the device is idle and no
    /// error happened; otherwise the layer calls abort()).
    virtual void shutdown() noexcept = 0;
};

} // namespace stagecraft::runtime::cuda
