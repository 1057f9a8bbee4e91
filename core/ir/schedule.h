#pragma once
// The schedule IR: where each stage lives and the order in which each device runs its ops.
// A schedule is plain data; generators build it, passes transform it, the validator checks it,
// the simulator times it, and writers print it.

#include "ir/op.h"

#include <cstddef>
#include <string>
#include <vector>

namespace stagecraft {

/// Where one (pipe, stage) runs: the device and which of that device's model chunks it is.
struct StageSlot {
    int device = 0;
    int chunk = 0;
    friend bool operator==(const StageSlot&, const StageSlot&) = default;
};

struct Schedule {
    std::string name;           ///< registry name ("1f1b") or where it was read from
    int devices = 0;            ///< pipeline devices p
    int pipes = 1;              ///< 1, or 2 for bidirectional schedules (Chimera, BitPipe)
    int stagesPerPipe = 0;      ///< S: stages of one pipe, in forward order
    int microbatches = 0;       ///< m, over all pipes together
    int chunksPerDevice = 1;    ///< model chunks a device holds, over all pipes
    bool splitBackward = false; ///< B is the input gradient and W the weight gradient (zero bubble)
    /// k: every micro-batch is cut into k slices along the sequence (Seq1F1B). An op's `mb` then
    /// names a unit u = micro-batch x k + slice, `microbatches` counts units (m x k), and every
    /// op computes a 1/k share of its micro-batch. 1: no slices.
    int sequenceSlices = 1;
    std::vector<std::vector<StageSlot>> placement; ///< [pipe][stage]
    std::vector<std::vector<Op>> order;            ///< [device]: ops in execution order
    /// What the generator wants users to know about this order (zb-auto: its lower bound and
    /// gap). Commentary, not part of the order: equality ignores it and passes may drop it.
    std::string notes;
    /// Heads of overlapped forward-backward slots (DualPipe's F&B), sorted: each is an F whose
    /// device runs it in one slot with the whole backward right after it (ir/overlap.h).
    std::vector<Op> overlapped = {};
    /// Backwards (B) of a split schedule that run with their W as one whole backward, sorted: the
    /// input gradient leaves when the W ends (ir/overlap.h).
    std::vector<Op> wholeBackward = {};

    const StageSlot& slot(int pipe, int stage) const { return placement[pipe][stage]; }
    std::size_t opCount() const;
    /// Fraction of a full stage (layers / p) that one stage of this schedule holds: p / S.
    /// Chunk ops of interleaved (1/v), V-shaped and BitPipe (1/2) schedules cost that much.
    double stageFraction() const { return double(devices) / double(stagesPerPipe); }
    /// What one op computes of its stage's work for a whole micro-batch: 1/k with sequence slices.
    double sliceShare() const { return 1.0 / double(sequenceSlices); }
    /// Micro-batches of samples an iteration runs: units over slices.
    double sampleMicrobatches() const { return double(microbatches) / double(sequenceSlices); }

    friend bool operator==(const Schedule& a, const Schedule& b) {
        return a.name == b.name && a.devices == b.devices && a.pipes == b.pipes &&
               a.stagesPerPipe == b.stagesPerPipe && a.microbatches == b.microbatches &&
               a.chunksPerDevice == b.chunksPerDevice && a.splitBackward == b.splitBackward &&
               a.sequenceSlices == b.sequenceSlices && a.placement == b.placement && a.order == b.order &&
               a.overlapped == b.overlapped && a.wholeBackward == b.wholeBackward;
    }
};

/// Stage s on device s mod p as chunk s div p (1F1B when S == p; interleaved and breadth-first).
std::vector<StageSlot> loopedPlacement(int devices, int stages);
/// V shape over 2p stages: stage s < p on device s (chunk 0), stage s >= p on device 2p-1-s (chunk 1).
std::vector<StageSlot> vShapePlacement(int devices);

/// An empty schedule with its shape and placement filled in and one empty order per device.
Schedule makeSchedule(std::string name, int devices, int microbatches,
                      std::vector<std::vector<StageSlot>> placement, bool splitBackward);

/// Append an op to `device`'s order. The chunk comes from the placement; the device must be the
/// one the placement names (a generator bug otherwise: std::logic_error).
void pushOp(Schedule& schedule, int device, OpKind kind, int pipe, int stage, int mb);

/// Reserve `device`'s order for `ops` ops plus the iteration tail (a gradient sync and an
/// optimizer step per chunk it holds), so predict() adds the tail without moving the order; a
/// large order gets the huge-page hint (ir/large_array.h).
void reserveOrder(Schedule& schedule, int device, std::size_t ops);

} // namespace stagecraft
