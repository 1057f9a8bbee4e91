#pragma once
// The device half of the runtime: what one rank's executor asks a backend to do. The executor
// (exec/executor.h) walks the rank's lowered program and owns the order, the buffers' lifetimes,
// the watchdog and the records; a layer only runs work and moves bytes: `host` (OpenBLAS GEMMs,
// MPI point-to-point and all-reduce, steady_clock stamps) and `cuda` (cuBLAS on a compute stream,
// NCCL with one communicator and stream per directed edge, CUDA events, NVTX ranges).
//
// Only standard-library types cross this interface: the CUDA layer is a separate shared module
// that stagecraft-run loads when asked (backends/cuda_module.h), so a host run never needs a GPU
// driver, and the executor's logic is the same line for line on both backends.

#include "work/device_work.h"

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace stagecraft::runtime {

/// One compute instruction of the program: the op's GEMMs (model workload) or a wait of its
/// predicted duration (sleep workload), after the receives it consumes.
struct ComputeWork {
    std::int32_t record = -1;   ///< where its start and end go (DeviceLayer::times)
    std::string label;          ///< torch's action string with its profiler prefix: "PP:2F0", NVTX range name
    double sleepUs = -1;        ///< >= 0: the sleep workload (spin this long on the device)
    std::vector<Gemm> gemms;    ///< the model workload, in order
    std::vector<Axpy> axpys;    ///< the optimizer step
    std::vector<Request> after; ///< receives (and collectives) that must complete before it starts
    /// Receives already posted that the rank's next compute waits for. A host rank that sleeps
    /// through this op copies them as they arrive, even in the op's last moments, where it
    /// copies nothing else (a copy there delays the next op unless that op needs it anyway).
    std::vector<Request> next;
};

/// One point-to-point transfer (the layer knows its peers from LayerSetup::edges).
struct Transfer {
    std::int32_t record = -1;
    std::string label; ///< "PP:0SEND_F1", "PP:1RECV_F1"
    std::int32_t peer = -1;
    std::int64_t tag = -1; ///< unique per transfer (MPI tag after LayerSetup::tagOf; NCCL ignores it)
    Operand data;
    std::uint64_t elements = 0;
};

/// One gradient all-reduce over LayerSetup::collectives[collective].
struct AllReduce {
    std::int32_t record = -1;
    std::string label; ///< "PP:0REDUCE_GRAD"
    std::int32_t collective = -1;
    Operand data;
    std::uint64_t elements = 0;
};

/// Start and end of one record, µs on this rank's host clock since DeviceLayer::anchor.
/// `end < start` (both -1) when the record never ran.
struct Stamp {
    double start = -1;
    double end = -1;
};

/// Everything a layer must create before the first iteration: communicators are made eagerly
/// and every edge is warmed once (a lazily made communicator inside the first iteration needs both
/// peers at once and costs time there).
struct LayerSetup {
    int rank = 0;
    int ranks = 1;
    std::vector<int> peers;                    ///< ranks this rank exchanges tensors with, ascending
    std::vector<std::vector<int>> collectives; ///< every collective's ranks (all ranks make all of them)
    /// [collective]: elements of the largest all-reduce it carries (the stage's gradients), so that
    /// the warm-up connects the algorithms and buffers the real one uses; empty: one element.
    std::vector<std::uint64_t> collectiveElements;
    std::string dtype = "fp32"; ///< element type of the model workload (host: always fp32)
    std::int32_t records = 0;   ///< records per iteration (the program's length)
};

/// A wait ran past its deadline: the executor names the rank, the instruction and its position,
/// writes the partial trace and aborts every rank.
struct DeadlineExceeded : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A backend failure (CUDA, cuBLAS, NCCL or MPI error code, out of memory): the expression, the
/// code's text, host and rank are in the message.
struct BackendError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

using Clock = std::chrono::steady_clock;

class DeviceLayer {
  public:
    virtual ~DeviceLayer() = default;
    DeviceLayer() = default;
    DeviceLayer(const DeviceLayer&) = delete;
    DeviceLayer& operator=(const DeviceLayer&) = delete;

    /// "host: AMD EPYC (OpenBLAS 0.3.21, fp32)", "cuda: NVIDIA H100 80GB HBM3 (sm_90), NCCL 2.28.9".
    virtual std::string describe() const = 0;
    virtual std::size_t elementBytes() const = 0;

    /// Creates communicators and warms every edge; collective over all ranks.
    virtual void setup(const LayerSetup& setup) = 0;
    /// Sets the time origin of the stamps to "now" on the host clock, after the device is idle.
    virtual void anchor() = 0;
    /// The host steady_clock time of the anchor (for the cross-rank clock estimate).
    virtual Clock::time_point anchorTime() const = 0;
    /// Before every iteration, with the device idle: ties the device clock to the host clock
    /// again, keeping the origin (cuda: a new reference event; host: nothing, its stamps are the
    /// host clock).
    virtual void reanchor() = 0;

    /// A buffer of `elements` elements, filled with small finite values. Throws BackendError when
    /// the device is out of memory. The executor allocates every buffer of a run before its first
    /// iteration (the lowering's slots, weights, gradients) and none inside one.
    virtual Buffer allocate(std::uint64_t elements) = 0;
    /// Gives the buffer back once every operation posted on it so far has completed (a send
    /// buffer is never reused before its send completes).
    virtual void release(Buffer buffer) = 0;
    /// allocate() calls so far (the executor reports those made inside iterations: none).
    virtual std::uint64_t allocations() const = 0;
    /// The buffer's contents are dead: work posted on it from now on starts only after the work
    /// posted on it before (host: nothing to do, the executor has waited for its transfers; cuda:
    /// the compute stream and the buffer's later users wait for its earlier users' streams).
    virtual void reuse(Buffer buffer) = 0;
    /// Memory the buffers really hold, measured: host, the resident pages of their memory
    /// (mincore); cuda, the high-water mark of the layer's memory pool.
    virtual std::uint64_t residentBytes(const std::vector<Buffer>& buffers) = 0;

    /// Runs (host) or enqueues (cuda) a compute instruction; stamps `work.record`.
    virtual void compute(const ComputeWork& work) = 0;

    /// Transfers between beginGroup and endGroup are posted together (ncclGroupStart/End; the
    /// host posts each at once anyway).
    virtual void beginGroup() = 0;
    virtual void endGroup() = 0;
    /// Posts a send of data that everything computed so far on this rank has produced.
    virtual Request send(const Transfer& transfer) = 0;
    virtual Request recv(const Transfer& transfer) = 0;
    virtual Request allReduce(const AllReduce& reduce) = 0;

    /// Makes the following compute wait for `request` (host: blocks until it completes; cuda: the
    /// compute stream waits on its event and the call returns at once). Throws DeadlineExceeded
    /// when `deadline` passes first.
    virtual void wait(Request request, Clock::time_point deadline) = 0;
    /// Notes completions without blocking (stamps their ends on the host backend).
    virtual void progress() = 0;
    /// True once `request` has completed (never blocks).
    virtual bool completed(Request request) = 0;
    /// True once the device has finished the work of `record` (an instruction of this iteration);
    /// a record that posted no device work is finished. Never blocks: the executor's run-ahead
    /// window polls it together with the deadline, asyncError() and the stop flag.
    virtual bool recordDone(std::int32_t record) = 0;
    /// A communicator's or the device's asynchronous error, empty when none (ncclCommGetAsyncError;
    /// the host backend has none: MPI reports errors where they happen).
    virtual std::string asyncError() = 0;
    /// Completes everything posted; throws DeadlineExceeded at `deadline` (naming what is still
    /// pending in its message) and BackendError on an asynchronous communicator error.
    virtual void finish(Clock::time_point deadline) = 0;
    /// The stamps of the records of the iteration that `finish` completed (resized to
    /// LayerSetup::records), then forgets them and the requests of that iteration.
    virtual void times(std::vector<Stamp>& stamps) = 0;
    /// Stops every communicator after a fault so that no rank hangs in it: an open group is
    /// closed first, then every communicator is aborted in one group call (ncclCommAbort). Bounded
    /// by `limit`: what has not returned by then is left to MPI_Abort.
    virtual void abort(std::chrono::milliseconds limit) noexcept = 0;
};

} // namespace stagecraft::runtime
