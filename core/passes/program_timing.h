#pragma once
// Timing of what a runtime executes: the lowered per-rank programs (passes/program.h), one
// instruction after the other on each rank, under a named runtime model that says what each
// instruction costs the rank's thread and what it waits for. The list scheduler times a schedule
// with one transfer delay per dependency; this times the sends, receives, waits and bookkeeping
// actions a real runtime runs, so a measured run can be fitted to it action by action
// (eval/runtime_fit.h) and another schedule predicted from the fit. docs/fidelity.md.
//
// torch.distributed.pipelining on CPU with gloo (RuntimeModel::TorchGloo): every action runs on
// the rank's main thread after the framework's own time between actions (`gap`). RECV and SEND
// post their transfer (`postRecv`, `postSend`: busy time on the thread). gloo transfers meet in a
// rendezvous: the payload moves once both ends are posted and arrives `latency + bytes * usPerByte`
// later, on gloo's own thread. A compute op whose input comes from another rank waits for that
// arrival first (torch waits inside the F/B/I action), then computes. WAIT_SEND blocks until its
// transfer arrived. REDUCE_GRAD, UNSHARD and RESHARD cost their own time; the optimizer is not
// part of torch's step. torch-timing.md in the reference notes gives the sources.

#include "passes/program.h"
#include "sim/timeline.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft {

enum class RuntimeModel : std::uint8_t {
    TorchGloo, ///< torch.distributed.pipelining's runtime, CPU ranks, gloo point-to-point
};

/// "torch-gloo".
const char* runtimeModelName(RuntimeModel model);

/// µs a compute op of one stage takes: forward, whole backward, the input-gradient half (I) and
/// the weight-gradient half (W) of a split backward. A negative value is "not known" (a run whose
/// backward was not split measures no I and W).
struct StageCompute {
    double f = -1, b = -1, i = -1, w = -1;
    friend bool operator==(const StageCompute&, const StageCompute&) = default;
};

/// µs each non-compute action costs the rank's thread, and the framework's time between actions.
struct ActionCosts {
    double gap = 0;        ///< before every action: the framework's own time (Python, dispatch)
    double postRecv = 0;   ///< posting a receive (RECV_F / RECV_B)
    double postSend = 0;   ///< posting a send (SEND_F / SEND_B)
    double waitSend = 0;   ///< WAIT_SEND_* once its transfer is done
    double reduceGrad = 0; ///< REDUCE_GRAD (torch scales the stage's gradients by 1/m)
    double unshard = 0;    ///< UNSHARD
    double reshard = 0;    ///< RESHARD
    friend bool operator==(const ActionCosts&, const ActionCosts&) = default;
};

/// A point-to-point transfer: from the moment both ends are posted to its arrival.
struct TransferCosts {
    double latency = 0;   ///< µs
    double usPerByte = 0; ///< µs per byte (1 / bandwidth)
    double time(std::uint64_t bytes) const { return latency + double(bytes) * usPerByte; }
    friend bool operator==(const TransferCosts&, const TransferCosts&) = default;
};

/// How much one run's times vary about the costs, as multipliers of a cost (a measured time
/// divided by the cost it was fitted to), each list sorted. A timing with a seed draws every
/// instruction's time as cost x one of these, so the waits that variation causes (a consumer
/// waits for the slower of its producer and itself) are in the prediction: with means alone, a
/// pipeline's timing is too short whenever its ops' times vary. Empty lists: no variation.
struct CostSpread {
    std::vector<double> compute;  ///< of every compute op about its stage and kind's cost
    std::vector<double> gap;      ///< of the framework's time between two actions
    std::vector<double> post;     ///< of posting a send or a receive
    std::vector<double> transfer; ///< of a transfer about its time
    friend bool operator==(const CostSpread&, const CostSpread&) = default;
};

struct RuntimeCosts {
    std::vector<StageCompute> stages; ///< [stage] of one pipe
    ActionCosts actions;
    TransferCosts transfer;
    CostSpread spread;
    /// The processors the ranks share, or 0: every rank has its own (GPUs, a CPU core per rank).
    /// With fewer processors than busy ranks, each busy rank runs at cores / busy of its speed
    /// (processor sharing): CPU ranks oversubscribed on a machine slow each other down as much
    /// as the schedule makes them compute at once. Costs are then the work of an instruction on a
    /// processor of its own. A rank that waits for a transfer does not compete.
    double cores = 0;
    friend bool operator==(const RuntimeCosts&, const RuntimeCosts&) = default;
};

struct TimingOptions {
    RuntimeModel model = RuntimeModel::TorchGloo;
    /// 0: every instruction takes its cost. Otherwise the seed of one draw of the costs' spread
    /// (the same seed gives the same timing).
    std::uint64_t seed = 0;
};

/// When one instruction ran on its rank: `start` when the rank reached it (after the gap),
/// `begin` when it began its own work (after waiting for an input or a transfer), `end` when the
/// rank went on.
struct TimedInstruction {
    double start = 0, begin = 0, end = 0;
};

struct ProgramTiming {
    std::vector<std::vector<TimedInstruction>> ranks; ///< [rank][instruction], as the programs
    /// Compute events (from `begin` to `end`: the op's own work) in each rank's program order, then
    /// one transfer event per Send (from both ends posted to the arrival), as the simulator writes.
    Timeline timeline;
    double makespan = 0; ///< the last rank's end, from 0 when every rank starts its program
};

/// Times `lowered` under `model`. Every compute op of the programs needs a known cost in `costs`
/// (ValidationError "timing.cost" names the stage and kind otherwise); programs that cannot all
/// finish (a receive nobody sends) are a ValidationError "timing.deadlock" naming a stuck rank and
/// its instruction. Linear in the number of instructions.
ProgramTiming timePrograms(const Lowered& lowered, const RuntimeCosts& costs,
                           const TimingOptions& options = {});

/// The µs `costs` gives the compute instruction `in` of a program whose backward is `split`;
/// negative when unknown.
double computeCost(const RuntimeCosts& costs, const Instruction& in, bool split);

} // namespace stagecraft
