#pragma once
// Schedule -> per-rank programs. Every data dependency between two ranks becomes one transfer: a
// Send right after the op that produces the tensor and a Recv before the op that consumes it.
// All transfers are put in one global order (by the time their producer ends when every op takes
// one step), and every rank posts its sends and receives in that order, so no two ranks can wait
// on each other however the runtime blocks (NCCL's send/receive rendezvous or MPI's blocking
// receives). Within that order a send is posted as early and a receive as late as possible;
// adjacent transfers form one group a runtime posts together (ncclGroupStart/End, or
// torch's batch_isend_irecv). Neighbouring stages on one rank (the V turn, BitPipe) hand their
// tensors over locally: no transfer. Linear in the number of ops. docs/lowering.md.

#include "ir/schedule.h"
#include "passes/program.h"

#include <cstdint>
#include <vector>

namespace stagecraft {

struct LowerOptions {
    /// Bytes of the activation crossing each stage boundary (stage s -> s + 1), the same for both
    /// pipes; the gradient coming back has the same size. Empty: one unit per boundary (tests and
    /// examples stay readable). Otherwise one positive entry per boundary (stagesPerPipe - 1).
    std::vector<std::uint64_t> boundaryBytes;
    /// Sequence slices that carry different tokens (a balanced split): a transfer of slice unit u
    /// carries boundaryBytes x sliceShares[u mod k] (rounded, at least one byte), k =
    /// sliceShares.size(). Empty: every slice carries boundaryBytes.
    std::vector<double> sliceShares;
    /// Bytes a gradient sync of each stage all-reduces ([stage], the same in both pipes). Empty:
    /// syncs carry no size (0).
    std::vector<std::uint64_t> gradientBytes;
};

/// Validates `schedule` (throws ValidationError, see validate/validator.h) and lowers it. GradSync
/// and Optimizer ops are lowered where the schedule has them (lower the result of
/// addIterationTail to get a whole iteration). Throws ValidationError("lower.bytes") when
/// `options.boundaryBytes` does not fit the schedule.
Lowered lower(const Schedule& schedule, const LowerOptions& options = {});

/// The programs stagecraft-run executes for one iteration of `schedule`: the iteration tail it
/// lacks added (passes/iteration_tail.h: a gradient sync per stage, an optimizer step per stage),
/// then lowered. The one chain of passes the CLI's `lower` and `show --comm` and the Python
/// module's `lower` use; a prediction's schedule has its tail already (lower it directly).
Lowered lowerIteration(const Schedule& schedule, const LowerOptions& options = {});

/// Fills in what follows from the instructions' identities and order: peers, tags, bytes,
/// buffer slots, per-stage and per-rank buffer counts, groups of adjacent transfers, and the
/// collectives of the gradient syncs. `lowered` must name a shape (ranks, pipes, stages,
/// micro-batches, placement) and hold well-formed instructions: every Send/Recv names a stage of
/// its rank whose neighbour on its side lives on another rank (std::logic_error otherwise).
/// `lower` and the torch compute+comms reader share it, so a program read back from a file is
/// annotated exactly as the one written.
void annotatePrograms(Lowered& lowered, const LowerOptions& options = {});

/// Checks `options.boundaryBytes` against a schedule of `stagesPerPipe` stages and
/// `options.sliceShares` against its `sequenceSlices` (ValidationError "lower.bytes").
void checkBoundaryBytes(const LowerOptions& options, int stagesPerPipe, int sequenceSlices = 1);

/// The options that give every boundary of `schedule` `bytesPerTransfer` bytes (the cost model's
/// activation size, CostSetup::p2pBytesPerTransfer: what stagecraft-run sends and what a Chakra
/// export hands a network simulator; one unit per boundary when it is below one byte) and every
/// stage's gradient sync `gradientBytes[stage]` (CostSetup::gradientBytes; none when empty), each
/// sequence slice its share (CostSetup::p2pSliceShares; alike when empty).
LowerOptions boundaryBytesOf(const Schedule& schedule, double bytesPerTransfer,
                             const std::vector<double>& gradientBytes = {},
                             const std::vector<double>& sliceShares = {});

} // namespace stagecraft
