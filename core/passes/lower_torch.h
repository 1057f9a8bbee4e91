#pragma once
// The programs torch 2.15's torch.distributed.pipelining executes for a compute-only schedule,
// exactly: which sends, receives, waits, FSDP actions and gradient reductions each rank runs, in
// which order. `lower` (passes/lower.h) places transfers Stagecraft's own way; these place them
// torch's way, so that a timing model can time what torch runs (the simulator in core/sim calls
// lowerLikeTorch for a torch run). Two kinds of runtime:
//
//  - `_PipelineScheduleRuntime` (Interleaved1F1B, LoopedBFS, InterleavedZeroBubble,
//    ZBVZeroBubble, DualPipeV, and any compute-only CSV torch loads): lowerLikeTorch reproduces
//    `_prepare_schedule_with_comms` pass by pass. Checked against the compute_comms CSVs torch
//    writes (tests/data/torch-csv/lowering/).
//  - ScheduleGPipe and Schedule1F1B do not lower their order: they run a hard-coded loop.
//    lowerGPipeLoopLikeTorch and lowerOneFOneBLoopLikeTorch write those loops as programs.
//
// In the programs, RECV_* and SEND_* post a receive or a send (torch's irecv/isend) and a Wait
// waits for one; a compute op waits for the receive it consumes (torch's F/B wait inside the
// action). Replay them with MPI semantics, one transfer at a time (ReplayOptions{Mpi, false}):
// posts do not block in torch. No optimizer step: torch's step() ends with the schedule.
// docs/lowering.md, "torch's own lowering".

#include "ir/schedule.h"
#include "passes/lower.h"
#include "passes/program.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace stagecraft {

/// How torch runs a schedule class.
enum class TorchRuntime : std::uint8_t {
    ScheduleRuntime, ///< _PipelineScheduleRuntime: the lowered action lists (lowerLikeTorch)
    GPipeLoop,       ///< ScheduleGPipe._step_microbatches
    OneFOneBLoop,    ///< Schedule1F1B._step_microbatches
};

/// "runtime", "gpipe-loop", "1f1b-loop".
const char* torchRuntimeName(TorchRuntime runtime);

/// The runtime torch runs a registered schedule with: `gpipe` (torch's ScheduleGPipe) and `1f1b`
/// (Schedule1F1B) their loops, every other schedule (or a compute-only file) the action runtime,
/// which is how torch runs any order it loads.
TorchRuntime torchRuntimeOf(std::string_view registryName);

/// The constructor arguments of torch's `_PipelineScheduleRuntime` that change the program.
struct TorchLowerOptions {
    /// `defer_pp_recv`: each RECV moves to just before its consumer, the lower rank of a pair
    /// flushing its receives from the peer before it sends to it (`_defer_recv_ops`).
    bool deferRecv = false;
    /// `max_outstanding_sends`: at most this many sends pending per rank (`_add_wait_send_budget`);
    /// -1 for torch's None (no limit). 0 refuses every schedule with a send, as torch does.
    int maxOutstandingSends = -1;
    /// `defer_reduce_grad_wait`: a WAIT_REDUCE_GRAD runs before the next REDUCE_GRAD or at the end.
    bool deferReduceGradWait = false;
    /// `max_active_stages`: local stages that may be unsharded at once (FSDP; UNSHARD/RESHARD).
    int maxActiveStages = 3;
    /// `unshard_lookahead` as a tuple: one value per rank in 1..maxActiveStages. Empty: torch's
    /// "full" (maxActiveStages on every rank); autoUnshardLookahead gives torch's "auto".
    std::vector<int> unshardLookahead;
    LowerOptions lower; ///< bytes per stage boundary, as for lower()
};

/// torch's "auto" lookahead: min(rank + 2, maxActiveStages) on each of `ranks` ranks.
std::vector<int> autoUnshardLookahead(int ranks, int maxActiveStages);

/// The programs torch's `_PipelineScheduleRuntime` runs for `schedule`'s compute order (empty
/// steps do not exist in a Schedule; torch drops its None steps first). Overlapped slots are
/// torch's OVERLAP_F_B, whose sends follow the whole action; whole backwards of a split schedule
/// are its B. The schedule is validated (ValidationError, validate/validator.h); a schedule torch
/// cannot run this way (two pipes, GradSync or Optimizer ops in the order) or options torch
/// refuses throw ValidationError("lower.torch"). Linear in the number of ops except the
/// round-robin placement of transfers, O(ops x ranks) at worst, and the send budget (only with
/// maxOutstandingSends), which searches torch's dependency graph once per candidate wait.
Lowered lowerLikeTorch(const Schedule& schedule, const TorchLowerOptions& options = {});

/// ScheduleGPipe's loop on `schedule`'s shape (one stage per rank, stage s on rank s; its order
/// is not read: torch's loop is fixed). Per micro-batch: post and wait the receive, forward, post
/// the send; all forward sends waited; the same for the backwards in ascending order; all
/// backward sends waited; the gradient reduction (REDUCE_GRAD and its wait).
Lowered lowerGPipeLoopLikeTorch(const Schedule& schedule, const LowerOptions& options = {});

/// Schedule1F1B's loop on `schedule`'s shape (as for GPipe; m >= pp, torch's rule). Warm-up
/// forwards each wait the previous forward send; in steady state the paired batches [SEND_F,
/// RECV_B] and [SEND_B, RECV_F] (one `group` each) are posted, then waited send first; cool-down
/// backwards wait the previous backward send. Transfers posted alone have group -1.
Lowered lowerOneFOneBLoopLikeTorch(const Schedule& schedule, const LowerOptions& options = {});

/// The program torch runs `schedule` with under `runtime` (options other than the bytes apply to
/// ScheduleRuntime only).
Lowered lowerLikeTorch(const Schedule& schedule, TorchRuntime runtime, const TorchLowerOptions& options = {});

} // namespace stagecraft
