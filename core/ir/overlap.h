#pragma once
// Slots: runs of consecutive ops a device executes as one unit, whose outputs are all ready when
// the unit ends. Two kinds:
//  * an overlapped forward-backward slot (DualPipe's "F&B", torch's `(0F7;7B3)OVERLAP_F_B`): the
//    forward of one stage and the whole backward of another, run together at a cost of its own;
//  * a whole backward in a schedule that splits the backward (DualPipe's stand-alone B, torch's
//    FULL_BACKWARD next to I/W): its B and W run as one op, and the input gradient leaves only
//    when both are done.
//
// Encoding (docs/simulation.md, "Slots"): the slot's ops stay ordinary ops, consecutive in the
// device's order. An overlapped slot is its F, then a B and, when the schedule splits the backward,
// that B's W (the backward inside a slot is always whole); `Schedule::overlapped` lists the heads
// (the F) by identity. A whole backward is a B and its W; `Schedule::wholeBackward` lists the B.
// Every op keeps its identity, its dependencies and its timeline event, so a pass that does not
// know about slots still sees a correct schedule: the same ops run one after the other, which is
// what torch's runtime does with an OVERLAP_F_B. Passes that care (the simulator, the validator,
// the charts, the files) read the slots from here.

#include "ir/op_index.h"
#include "ir/schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft {

/// Ops in one overlapped slot: F and B, plus W when the backward is split.
inline int overlapSlotLength(const Schedule& schedule) {
    return schedule.splitBackward ? 3 : 2;
}

/// Append one overlapped slot to `device`'s order: F of (fPipe, fStage, fMb), then the whole
/// backward of (bPipe, bStage, bMb) (B, and W when the schedule splits the backward), and record
/// its head. Throws std::logic_error where pushOp does (a generator bug).
void pushOverlapped(Schedule& schedule, int device, int fPipe, int fStage, int fMb, int bPipe, int bStage,
                    int bMb);

/// Append a whole backward of (pipe, stage, mb) to `device`'s order: B then W of a schedule that
/// splits the backward, recorded as one unit; B alone otherwise.
void pushWholeBackward(Schedule& schedule, int device, int pipe, int stage, int mb);

/// Sort `overlapped` and `wholeBackward` (readers that record heads out of order call it once).
void sortSlotHeads(Schedule& schedule);

/// A slot head that does not head a well-formed slot.
struct SlotProblem {
    OpRef where; ///< the head's position, or invalid when the head is not in the schedule
    std::string message;
};

/// One slot: `length` ops from `position` of its device.
struct Slot {
    std::int32_t position = 0;
    std::int32_t length = 0;
    bool overlapped = false; ///< an F&B slot (costs.overlap applies); else a whole backward
};

/// The well-formed slots of a schedule, by position: what the simulator and the charts walk.
struct ScheduleSlots {
    std::vector<std::vector<Slot>> of; ///< [device] slots in ascending position
    std::vector<SlotProblem> problems; ///< heads that were left out, and why
    bool empty() const;
};

/// Resolve `overlapped` and `wholeBackward` through `index`. An overlapped head must be an F the
/// schedule runs, followed on its device by a B of another (stage, micro-batch) and, with a split
/// backward, by that B's W. A whole backward must be a B of a split schedule followed by its own W.
/// A head is listed once; heads that break a rule are reported in `problems` and left out.
ScheduleSlots findSlots(const Schedule& schedule, const OpIndex& index);

/// Which slot each op is in, by global id (built only for schedules with slots), and the
/// producers that release an op under slot semantics: what idle attribution and critical paths
/// follow.
class SlotLookup {
  public:
    SlotLookup(const Schedule& schedule, const OpIndex& index);
    bool empty() const { return m_first.empty(); }
    /// Calls `visit(producerGid)` for every producer that releases op `gid`: its own producers
    /// when it is in no slot; the producers from outside the slot of every op of the slot it
    /// heads; none when it is in a slot after its head (the op before it releases it). A producer
    /// in a slot is given as the last op of that slot, which ends when all its outputs are ready.
    template <typename Visit>
    void forEachProducer(const OpIndex& index, std::size_t gid, Visit&& visit) const {
        std::size_t first = gid, last = gid;
        if (!empty() && m_first[gid] >= 0) {
            if (std::size_t(m_first[gid]) != gid) return;
            last = std::size_t(m_last[gid]);
        }
        for (std::size_t member = first; member <= last; ++member) {
            const OpDeps deps = index.depsOf(member);
            for (const std::int32_t dep : {deps.first, deps.second})
                if (dep >= 0 && (std::size_t(dep) < first || std::size_t(dep) > last))
                    visit(empty() || m_last[std::size_t(dep)] < 0 ? std::size_t(dep)
                                                                  : std::size_t(m_last[std::size_t(dep)]));
        }
    }

  private:
    std::vector<std::int32_t> m_first, m_last; // [gid] first and last op of its slot, -1 outside
};

} // namespace stagecraft
