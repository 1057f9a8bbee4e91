#pragma once
// A schedule being edited by hand: its order, where every op sits, and every op's start and end,
// kept up to date edit by edit. An edit costs what it touches: moving an op rotates the stretch of
// its device's order between its old and new place, then re-times the ops of that stretch and,
// transitively, the successors of every op whose times changed (change propagation, in the order
// of the times before the edit). An edit that made a cycle, or one on an order that is already
// broken, re-times the ops downstream of it with Kahn's algorithm instead: the ops it cannot reach
// form the cycle, named as a broken dependency (an op before its own producer on one device) or as
// devices waiting on each other in a ring, found by the list scheduler's ring finder.
//
// Timing follows the list scheduler (sim/list_scheduler.h) exactly: an op starts when its device
// is free and its inputs have arrived (producer end + transfer when it crosses devices); a whole
// backward (ir/overlap.h) runs as one slot. Tests check edit against full re-simulation.
//
// Edits never throw half-done: one that cannot be applied (an op the schedule lacks, a target on
// another device, a move into a whole backward) throws ValidationError and changes nothing. One
// that applies but breaks the schedule is applied; `broken()` says how, and the inverse undoes it.

#include "edit/edit.h"
#include "ir/op_index.h"
#include "ir/schedule.h"
#include "sim/list_scheduler.h"
#include "sim/timeline.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft {

/// What the order is after an edit: runnable, an op placed before its own dependency on one
/// device, or devices that wait on each other in a ring.
enum class BreakKind : std::uint8_t { None, Dependency, Deadlock };

struct EditBreak {
    BreakKind kind = BreakKind::None;
    /// Dependency: the op and the op of its device it waits for. Deadlock: one wait per device of
    /// the ring, in ring order (each waits for an op on the next).
    std::vector<BlockedDevice> waits;
    std::string message; ///< names the ops, devices and positions; empty when nothing is broken
};

struct EditOutcome {
    std::vector<Edit> inverse; ///< applied in order, restores the order before the edit exactly
    std::size_t retimed = 0;   ///< ops whose times were recomputed: what the edit touched
    EditBreak broken;          ///< what the order is after the edit (kind None when it runs)
};

class ScheduleEditor {
  public:
    /// `schedule` must pass the validator and hold no recompute ops or overlapped slots
    /// (ValidationError "edit.schedule" otherwise). `costs` are per kind in the split convention:
    /// B is the input gradient and W the weight gradient, so a whole backward costs B + W whether
    /// or not the schedule splits it; sync and optimizer costs may be left empty (free).
    ///
    /// An order that holds gradient syncs or optimizer steps (Chimera's and BitPipe's eager syncs,
    /// or ones an edit added) is re-timed whole after every edit, by the list scheduler itself:
    /// its collectives start in the order that scheduler reaches their last post, which no local
    /// rule reproduces, so change propagation would drift from simulate(). Linear in the ops;
    /// compute-only orders keep the incremental re-timing above.
    ScheduleEditor(Schedule schedule, OpCosts costs);

    /// Apply one edit (see the class comment for what throws). Amortised cost: the places the op
    /// moves over plus the re-timed cone; split / merge of one backward likewise, except the first
    /// split of a schedule that does not split its backward and the merge of its last split
    /// backward, which switch the whole order's form (linear, once). A pipe edit rebuilds the
    /// orders of the devices it changes (linear in them) and re-times from the first change.
    EditOutcome apply(const Edit& edit);
    /// Apply `edits` in order; the outcome of each.
    std::vector<EditOutcome> applyAll(const std::vector<Edit>& edits);

    const Schedule& schedule() const { return m_s; }
    const EditBreak& broken() const { return m_broken; }
    bool runs() const { return m_broken.kind == BreakKind::None; }

    /// Start and end of the op at `index` of `device` (raw slot times: both ops of a whole
    /// backward span the slot, as listSchedule reports them); -1 for ops a broken order cannot
    /// reach.
    const OpTime& time(int device, std::size_t index) const { return m_times[std::size_t(device)][index]; }
    /// The latest end over every device (0 when broken).
    double makespan() const;
    /// Idle over all device time, 1 - busy / (p * makespan) (0 when broken).
    double bubbleRatio() const;
    /// Whether backward `b` (a B of a schedule that splits its backward) runs with its W as one
    /// whole backward (ir/overlap.h): then neither moves alone.
    bool isWhole(const Op& b) const;
    /// When the inputs of the op at `index` of `device` arrive: the latest end of its data
    /// producers plus the transfer from their devices (0 for an op without producers).
    double inputsReadyAt(int device, std::size_t index) const;
    /// Where op `op` sits (by identity: kind, pipe, stage, micro-batch); invalid when absent.
    OpRef find(const Op& op) const;
    /// The cost table of the schedule as it is now, in fullStageCosts' convention (a backward that
    /// is not split costs B + W): what simulate() and listSchedule() of schedule() take.
    OpCosts costs() const;
    /// The simulated timeline of the current order (one full simulation: for charts, memory and
    /// files, not per move). Throws ValidationError "schedule.deadlock" when broken.
    Timeline timeline() const;

    /// True while the order holds gradient syncs or optimizer steps (see the constructor).
    bool wholeRetime() const { return m_tailOps > 0; }

  private:
    static bool isTailKind(OpKind kind);
    std::size_t computeSlots() const;
    std::size_t slotOf(const Op& op) const;
    std::int32_t& posOf(const Op& op) { return m_pos[slotOf(op)]; }
    std::int32_t posOf(const Op& op) const { return m_pos[slotOf(op)]; }
    int deviceOf(const Op& op) const { return m_s.slot(op.pipe, op.stage).device; }
    void setWhole(const Op& b, bool whole);
    OpRef require(const Op& op, const char* role) const;
    void checkMovable(const Op& op) const;
    void rebuildPositions();

    EditOutcome dispatch(const Edit& edit);
    EditOutcome moveTo(const Op& op, std::int64_t index, Edit inverse);
    EditOutcome split(const Edit& edit);
    EditOutcome merge(const Edit& edit);
    /// A micro-batch onto the other pipe (edit/pipe_edit.cpp): linear in the devices' orders it
    /// changes, re-timed from the first place that changed.
    EditOutcome repipe(const Edit& edit);
    void toSplitForm();
    void toWholeForm();
    template <typename Visit>
    void forEachProducer(const Op& op, Visit&& visit) const;
    template <typename Visit>
    void forEachConsumer(const Op& op, Visit&& visit) const;
    double durationOf(const Op& op) const;
    /// Device time an op takes: its duration, but none for a gradient sync (a posted collective).
    double busyOf(const Op& op) const;
    /// Add / drop a gradient sync or optimizer step (edit kinds Add, Drop).
    EditOutcome addTail(const Edit& edit);
    EditOutcome dropTail(const Edit& edit);
    void eraseTail(OpRef at);
    /// The place right after the last backward of (pipe, stage) in its device's order, where the
    /// iteration tail posts the stage's sync.
    std::size_t afterLastBackward(int pipe, int stage) const;
    /// An order with syncs or optimizer steps: every op re-timed by listSchedule.
    std::size_t retimeWhole();
    void setBreak(const std::vector<BlockedDevice>& blocked, const std::vector<int>& ring);
    void insertTail(std::size_t device, std::size_t index, const Op& op);
    /// The times of the op at `index` of `device` from its neighbours' current times.
    OpTime timeOf(std::size_t device, std::size_t index) const;
    /// After an edit: propagate from `seeds` (the ops whose producers or cost changed) when the
    /// order ran before it; else, or when propagation meets a cycle, re-time the cone from `from`.
    std::size_t update(const std::vector<OpRef>& seeds, std::vector<std::size_t> from);
    std::size_t propagate(const std::vector<OpRef>& seeds);
    /// Re-time every op from position `from[d]` of each device d and whatever depends on them.
    std::size_t retime(std::vector<std::size_t> from);
    void describeBreak(const std::vector<std::size_t>& done);

    Schedule m_s;
    OpCosts m_costs; // split convention
    double m_busy = 0;
    bool m_positiveCosts = false;      // every op takes time: change propagation applies
    std::size_t m_tailOps = 0;         // gradient syncs and optimizer steps in the order
    std::vector<std::int32_t> m_pos;   // [kind F/B/W][pipe][stage][mb], then [sync/optimizer][pipe][stage]
                                       // -> index in its device's order
    std::vector<std::uint8_t> m_whole; // [pipe][stage][mb]: B runs with its W as one whole backward
    std::vector<std::vector<OpTime>> m_times;      // [device][index]
    std::vector<std::size_t> m_unresolved;         // [device] first op a broken order cannot reach
    std::vector<std::vector<std::int32_t>> m_wait; // [device][index] scratch: producers not yet timed
    EditBreak m_broken;
};

} // namespace stagecraft
