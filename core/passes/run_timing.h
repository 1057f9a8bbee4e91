#pragma once
// Timing of stagecraft-run's programs: the runtime model "stagecraft-run" (docs/fidelity.md,
// docs/runtime.md). The list scheduler delays every cross-device dependency by the transfer time
// after its producer ends; stagecraft-run's executor does something more particular, and this
// times exactly that, on the lowered programs it executes:
//
//  - a rank runs its compute ops, gradient syncs and optimizer steps one after the other, each for
//    its predicted duration (the cost model's, as the run's sleep workload waits);
//  - posting never blocks (MPI): a receive is posted when the rank reaches the first instruction
//    from which its buffer slot is free (passes/buffer_slots.h), in program order per peer; a send
//    right after the compute that produced its tensor, in program order;
//  - a transfer moves once both ends are posted and arrives the link's time later (the receiver
//    copies it: where the receive is posted late, when the op before frees its slot, the copy lies
//    between the two ops, which the list scheduler does not see);
//  - a compute op waits for the arrival of the tensor it received; a recompute waits for its
//    forward's send to complete (it writes that buffer again);
//  - a gradient sync is posted and runs on the rank's collective lane once every member posted it;
//    an optimizer step waits for its stage's sync.
//
// With transfers that take no time it gives the list scheduler's times exactly (a receive is
// posted no later than its consumer is reached). Linear in the number of instructions.

#include "ir/schedule.h"
#include "passes/program.h"
#include "passes/program_timing.h"
#include "sim/list_scheduler.h"
#include "sim/timeline.h"

namespace stagecraft {

/// Times `lowered` (the lowering of `schedule`) as stagecraft-run executes it: every op, gradient
/// sync and optimizer step takes its duration in `listScheduled` (simulate() of `schedule` under
/// `costs`: the sleep workload waits exactly that), every transfer `costs.commBetween` its ranks
/// for its slice.
/// Returns `listScheduled` re-timed: the compute, sync and optimizer events in their order with the
/// programs' times, then one transfer event per send that takes time (from both ends posted to the
/// arrival). `programs` (optional) receives the timing of every instruction. ValidationError
/// "timing.deadlock" names a stuck rank and its instruction; std::logic_error when the programs do
/// not run the schedule's ops.
Timeline timeLikeStagecraftRun(const Schedule& schedule, const Lowered& lowered, Timeline listScheduled,
                               const OpCosts& costs, ProgramTiming* programs = nullptr);

} // namespace stagecraft
