#pragma once
// From what every rank measured to one measured Timeline: compute ops, gradient syncs and
// transfers of every iteration on rank 0's clock, each transfer split into the time one side
// waited for the other to post and the transfer itself, memory counters per rank, and the checks
// a measurement must pass before anyone trusts it (causality of every transfer, every
// dependency in measured time). A send meets the receive the lowering matched it with
// (Lowered::matches), so the pairing is core's, not re-derived from tags; who waited for whom and
// the causality check are core's rule too (io/measured_transfer.h), the one the foreign traces'
// assembly uses. The rest is this runtime's own measurement: its clock offsets, every iteration
// kept, its memory stamps. Pure: the runtime
// gathers, this assembles, in named steps (trace_assembly.cpp); tests feed it by hand.

#include "exec/executor.h"
#include "io/chrome_trace.h"
#include "plan/run_plan.h"

#include <string>
#include <vector>

namespace stagecraft::runtime {

struct MeasuredRun {
    /// [rank][iteration]; a rank that failed has fewer iterations, its last possibly partial.
    std::vector<std::vector<RankIteration>> ranks;
    std::vector<double> clockOffsetUs; ///< [rank]: subtract from the rank's times to get rank 0's clock
    /// [rank]: the same measured again after the last iteration, at `clockEndAtUs` on rank 0's
    /// clock (empty: not measured). An iteration's offset is interpolated between the two by its
    /// start, so that clocks drifting apart over a long run still meet.
    std::vector<double> clockOffsetEndUs;
    double clockEndAtUs = 0;
    std::vector<std::int64_t> staticBytes; ///< [rank]
    std::vector<std::uint64_t>
        plannedSlotBytes; ///< [rank]: the lowering's slots (Executor::plannedSlotBytes)
};

struct AssembledTrace {
    Timeline timeline;                     ///< origin "measured"; events of every iteration
    std::vector<std::uint32_t> iterations; ///< [event]: its iteration
    std::vector<TraceSlice> waits;         ///< the part of each transfer spent waiting for the peer
    std::vector<CounterTrack> memory;      ///< per rank, MiB over time
    std::vector<double> peakBytes;         ///< [rank]: static + most activation memory held
    /// [rank]: the slots' memory measured (most over the iterations), and buffer allocations made
    /// inside iterations (summed; the runtime makes none).
    std::vector<std::uint64_t> residentSlotBytes;
    std::vector<std::uint64_t> allocationsInIterations;
    /// [iteration]: the first op's start to the last op's end over all ranks (compute ops, gradient
    /// syncs, optimizer steps: the prediction's makespan; early-posted receives do not count).
    std::vector<double> iterationUs;
    /// Transfers whose receive ended before their send started (a clock error larger than the
    /// transfer), and the worst such gap in µs.
    int causalityViolations = 0;
    double worstViolationUs = 0;
    /// Compute ops that started before an op they depend on (on another rank) ended, beyond
    /// `toleranceUs`; the worst gap.
    int dependencyViolations = 0;
    double worstDependencyUs = 0;
    int completeIterations = 0; ///< iterations every rank finished
};

/// The offset of `rank`'s clock in `iteration`: the start's, moved towards the end's in
/// proportion to how far into the run the iteration began (rank 0's iteration start).
double clockOffsetAt(const MeasuredRun& run, int rank, std::size_t iteration);

/// How long iteration `iteration` took over all ranks, on rank 0's clock: the first op's start to
/// the last op's end (compute ops, gradient syncs, optimizer steps: the prediction's makespan;
/// early-posted receives do not count). 0 when no rank recorded an op of it. AssembledTrace's
/// iterationUs and stagecraft-run's progress line.
double iterationSpanUs(const Lowered& lowered, const MeasuredRun& run, std::size_t iteration);

/// `toleranceUs` absorbs the residual clock error of the offset estimate.
AssembledTrace assembleTrace(const RunPlan& plan, const MeasuredRun& run, double toleranceUs = 0);

} // namespace stagecraft::runtime
