#pragma once
// Overlapped forward-backward slots: DualPipe's "F&B", torch's `(0F7;7B3)OVERLAP_F_B`. A device
// runs the forward of one stage and the whole backward of another as one slot of its own cost,
// whose outputs are all ready when the slot ends.
//
// Encoding (docs/simulation.md, "Overlapped slots"): the slot's ops stay ordinary ops, consecutive
// in the device's order: the F that heads it, then a B and, when the schedule splits the backward,
// that B's W (the backward inside a slot is always whole). `Schedule::overlapped` lists the heads
// by identity. Every op keeps its identity, its dependencies and its timeline event, so a pass that
// does not know about slots still sees a correct schedule: the same ops run one after the other,
// which is what torch's runtime does with an OVERLAP_F_B. Passes that care (the simulator, the
// validator, the charts, the torch CSV) read the slots from here.

#include "ir/op_index.h"
#include "ir/schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft {

/// Ops in one slot: F and B, plus W when the backward is split.
inline int overlapSlotLength(const Schedule& schedule) {
    return schedule.splitBackward ? 3 : 2;
}

/// Append one slot to `device`'s order: F of (fPipe, fStage, fMb), then the whole backward of
/// (bPipe, bStage, bMb) (B, and W when the schedule splits the backward), and record its head.
/// Keeps `overlapped` sorted. Throws std::logic_error where pushOp does (a generator bug).
void pushOverlapped(Schedule& schedule, int device, int fPipe, int fStage, int fMb, int bPipe, int bStage,
                    int bMb);

/// Sort `overlapped` (readers and generators that record heads out of order call it once).
void sortOverlapped(Schedule& schedule);

/// A slot head that does not head a well-formed slot.
struct OverlapProblem {
    OpRef where; ///< the head's position, or invalid when the head is not in the schedule
    std::string message;
};

/// The well-formed slots of a schedule, by position: what the simulator and the charts walk.
struct OverlapSlots {
    int length = 2;                                  ///< ops per slot
    std::vector<std::vector<std::int32_t>> heads;    ///< [device] ascending positions of slot heads
    std::vector<OverlapProblem> problems;            ///< heads that were left out, and why
    bool empty() const;
};

/// Resolve `schedule.overlapped` through `index`. A head must be an F the schedule runs, listed
/// once, followed on its device by a B of another (stage, micro-batch) and, with a split backward,
/// by that B's W. Heads that break a rule are reported in `problems` and left out.
OverlapSlots findOverlapSlots(const Schedule& schedule, const OpIndex& index);

/// "(0F7;7B3)" style label of the slot headed at `device`, `position` (for messages and charts).
std::string describeSlot(const Schedule& schedule, int device, int position);

} // namespace stagecraft
