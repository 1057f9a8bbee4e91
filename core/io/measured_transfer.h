#pragma once
// One measured point-to-point transfer from the times of its two ends on one clock: when it could
// run, which side waited for the other and for how long, and whether the clocks contradict it.
// The one rule for both assemblies of a measured run: the foreign traces' (io/measured_run.h) and
// stagecraft-run's own stamps (gpu_runtime/exec/trace_assembly.h).

namespace stagecraft {

/// The two ends of a transfer, each from its posting to its return (µs, one clock).
struct TransferEnds {
    double sendStart = 0, sendEnd = 0;
    double recvStart = 0, recvEnd = 0;
};

struct MeasuredTransfer {
    double start = 0; ///< both ends posted: the data could move
    double end = 0;   ///< the receive returned (never before `start`)
    /// The side that posted first waited for the other, from its own posting until the other
    /// posted or its own call returned, whichever came first (an eager send that returned before
    /// the receive was posted did not wait for it).
    bool receiverWaited = false;
    double waitStart = 0, waitEnd = 0;
    /// µs by which the receive returned before the send was posted: more than 0 only when the two
    /// clocks disagree by more than the transfer took.
    double clockContradiction = 0;

    double wait() const { return waitEnd - waitStart; }
    double senderWait() const { return receiverWaited ? 0.0 : wait(); }
    double receiverWait() const { return receiverWaited ? wait() : 0.0; }
};

MeasuredTransfer measureTransfer(const TransferEnds& ends);

} // namespace stagecraft
