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
//
// stagecraft-run's own programs (MPI posts that never block, receives posted when their buffer slot
// is free) are timed by passes/run_timing.h, from the cost model's op durations.

#include "passes/program.h"
#include "project/runtime_costs.h"
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

struct TimingOptions {
    RuntimeModel model = RuntimeModel::TorchGloo;
    /// 0: every instruction takes its cost. Otherwise the seed of one draw of the costs' spread
    /// (the same seed gives the same timing).
    std::uint64_t seed = 0;
};

/// When one instruction ran on its rank: `start` when the rank reached it (after the gap),
/// `begin` when it began its own work (after waiting for an input or a transfer), `end` when the
/// rank went on; `awaited`: the tag of the transfer it waited for (its received input, or the
/// transfer a wait instruction completes), -1 for none.
struct TimedInstruction {
    double start = 0, begin = 0, end = 0;
    std::int64_t awaited = -1;
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

/// The event of the transfer the Send `send` of `rank` starts: from `start` (both ends posted) to
/// `end` (its arrival), on the sender's communication lane, as the simulator writes transfers.
TimelineEvent transferEvent(const Lowered& lowered, int rank, const Instruction& send, double start,
                            double end);

/// Throws ValidationError "timing.deadlock": `rank` waits forever at its instruction `pc` (named),
/// because `what`.
[[noreturn]] void throwStuck(const Lowered& lowered, int rank, std::size_t pc, const std::string& what);

/// The µs `costs` gives the compute instruction `in` of a program whose backward is `split`, run
/// by `rank` (a W takes that rank's speed, weightCostOn; -1: the stage's own W); negative when
/// unknown. The B and W of a whole backward (Instruction::wholeBackward) share the stage's whole
/// backward cost `b` in the proportion of its I and W, where all three are known.
double computeCost(const RuntimeCosts& costs, const Instruction& in, bool split, int rank = -1);

} // namespace stagecraft
