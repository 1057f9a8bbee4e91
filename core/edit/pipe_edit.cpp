// The pipe edit of ScheduleEditor: a micro-batch of a two-pipe schedule (Chimera, BitPipe) runs on
// the other pipe. Each of its ops goes to the device the new pipe places its stage on, where its
// time before the edit falls in that device's order (the designer's picture: "run this micro-batch
// down the other pipe, in the same slots"); the orders are then re-timed from the first change.
// The inverse puts the micro-batch back and each op after the op it followed, so undo restores the
// orders exactly.
#include "edit/schedule_editor.h"
#include "error.h"
#include "ir/op_name.h"

#include <algorithm>
#include <limits>

namespace stagecraft {

namespace {

[[noreturn]] void refusePipe(const std::string& id, const std::string& field, const Edit& edit,
                             const std::string& why) {
    throw ValidationError(id, field, formatEdit(edit, false) + ": " + why);
}

/// One op of the micro-batch: where it was and when it started (untimed ops of a broken order
/// count as last).
struct MovedOp {
    Op op;
    std::size_t device = 0, index = 0;
    double start = 0;
};

double startOrLast(const OpTime& t) {
    return t.start >= 0 ? t.start : std::numeric_limits<double>::infinity();
}

/// Undo of a pipe edit: back to the old pipe, then each op after the op it followed (in order of
/// position, so that an op's predecessor is in its place before the op is).
std::vector<Edit> inverseOf(std::vector<MovedOp> moved, const std::vector<std::vector<Op>>& order, int mb,
                            int from) {
    std::vector<Edit> out{
        Edit{EditKind::Pipe, Op{OpKind::F, 0, 0, 0, mb}, false, MoveAnchor::Index, {}, from}};
    std::sort(moved.begin(), moved.end(), [](const MovedOp& a, const MovedOp& b) {
        return a.device != b.device ? a.device < b.device : a.index < b.index;
    });
    for (const MovedOp& m : moved) {
        if (m.index == 0)
            out.push_back(Edit{EditKind::Move, m.op, false, MoveAnchor::Index, {}, 0});
        else
            out.push_back(
                Edit{EditKind::Move, m.op, false, MoveAnchor::After, order[m.device][m.index - 1], 0});
    }
    return out;
}

/// A device's new order: its ops but the leaving ones, with the arriving ones merged in by their
/// start (after remaining ops that start at the same time).
std::vector<Op> mergeByStart(const std::vector<Op>& old, const std::vector<OpTime>& times,
                             const std::vector<std::uint8_t>& leaving, std::vector<MovedOp> incoming) {
    std::stable_sort(incoming.begin(), incoming.end(),
                     [](const MovedOp& a, const MovedOp& b) { return a.start < b.start; });
    std::vector<Op> merged;
    merged.reserve(old.size() + incoming.size());
    std::size_t next = 0;
    for (std::size_t i = 0; i < old.size(); ++i) {
        if (!leaving.empty() && leaving[i]) continue;
        const double start = startOrLast(times[i]);
        while (next < incoming.size() && incoming[next].start < start) merged.push_back(incoming[next++].op);
        merged.push_back(old[i]);
    }
    while (next < incoming.size()) merged.push_back(incoming[next++].op);
    return merged;
}

/// A stage's sync and optimizer step wait for every backward of their pipe: where the arriving
/// micro-batch's last backward of a stage (kind `last`) lands after them, they move to right
/// after it, in their order.
void tailAfterBackward(std::vector<Op>& order, const std::vector<MovedOp>& arriving, OpKind last) {
    for (const MovedOp& m : arriving) {
        if (m.op.kind != last) continue;
        const auto at = std::size_t(std::find(order.begin(), order.end(), m.op) - order.begin());
        std::vector<Op> kept, following;
        kept.reserve(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            const Op& op = order[i];
            const bool tail = op.kind == OpKind::GradSync || op.kind == OpKind::Optimizer;
            (i < at && tail && op.pipe == m.op.pipe && op.stage == m.op.stage ? following : kept)
                .push_back(op);
            if (i == at) kept.insert(kept.end(), following.begin(), following.end());
        }
        order = std::move(kept);
    }
}

} // namespace

EditOutcome ScheduleEditor::repipe(const Edit& edit) {
    const int mb = edit.op.mb;
    if (m_s.pipes < 2)
        refusePipe("edit.slot", "pipe", edit,
                   "schedule '" + m_s.name +
                       "' has one pipe; a micro-batch changes pipe in a schedule with "
                       "two (Chimera, BitPipe)");
    if (mb < 0 || mb >= m_s.microbatches)
        refusePipe("edit.op", "mb", edit,
                   "micro-batch " + std::to_string(mb) + " is not in 0.." +
                       std::to_string(m_s.microbatches - 1));
    if (edit.index < 0 || edit.index >= m_s.pipes)
        refusePipe("edit.target", "to", edit,
                   "pipe " + std::to_string(edit.index) + " is not in 0.." + std::to_string(m_s.pipes - 1));
    const auto to = std::uint8_t(edit.index);
    int from = -1;
    for (int p = 0; p < m_s.pipes; ++p)
        if (find(Op{OpKind::F, std::uint8_t(p), 0, 0, mb}).valid()) from = p;
    if (from < 0)
        refusePipe("edit.op", "mb", edit,
                   "the schedule runs no forward of micro-batch " + std::to_string(mb));
    if (from == to)
        refusePipe("edit.target", "to", edit,
                   "micro-batch " + std::to_string(mb) + " runs on pipe " + std::to_string(to) + " already");

    // The micro-batch's ops, where they are and when they start.
    std::vector<MovedOp> moved;
    for (int stage = 0; stage < m_s.stagesPerPipe; ++stage)
        for (const OpKind kind : {OpKind::F, OpKind::B, OpKind::W}) {
            const Op op{kind, std::uint8_t(from), 0, stage, mb};
            const OpRef at = find(op);
            if (!at.valid()) continue;
            if (kind == OpKind::B && m_s.splitBackward && isWhole(op))
                refusePipe("edit.slot", "mb", edit,
                           opName(op, true, m_s.sequenceSlices) +
                               " runs with its W as one whole backward: split " +
                               opName(op, false, m_s.sequenceSlices) + " before moving its micro-batch");
            moved.push_back({m_s.order[std::size_t(at.device)][std::size_t(at.index)], std::size_t(at.device),
                             std::size_t(at.index),
                             startOrLast(m_times[std::size_t(at.device)][std::size_t(at.index)])});
        }

    // The syncs and optimizer steps of the devices the micro-batch arrives on may have to follow
    // it (tailAfterBackward); the undo puts each back after the op it followed.
    const std::size_t devices = std::size_t(m_s.devices);
    std::vector<MovedOp> restored = moved;
    if (wholeRetime())
        for (int stage = 0; stage < m_s.stagesPerPipe; ++stage) {
            const auto d = std::size_t(m_s.slot(to, stage).device);
            for (std::size_t i = 0; i < m_s.order[d].size(); ++i)
                if (isTailKind(m_s.order[d][i].kind)) restored.push_back({m_s.order[d][i], d, i, 0});
        }
    EditOutcome out{inverseOf(restored, m_s.order, mb, from), 0, {}};

    // The new orders: each changed device's remaining ops with the arriving ones merged in.
    std::vector<std::vector<MovedOp>> arriving(devices);
    std::vector<std::vector<std::uint8_t>> leaving(devices);
    for (const MovedOp& m : moved) {
        m_busy -= durationOf(m.op);
        MovedOp next = m;
        const StageSlot& slot = m_s.slot(to, m.op.stage);
        next.op.pipe = to;
        next.op.chunk = std::uint16_t(slot.chunk);
        next.device = std::size_t(slot.device);
        m_busy += durationOf(next.op);
        arriving[next.device].push_back(next);
        if (leaving[m.device].empty()) leaving[m.device].assign(m_s.order[m.device].size(), 0);
        leaving[m.device][m.index] = 1;
    }
    std::vector<std::size_t> first(devices, std::size_t(-1));
    for (std::size_t d = 0; d < devices; ++d) {
        if (arriving[d].empty() && leaving[d].empty()) continue;
        const auto& old = m_s.order[d];
        std::vector<Op> merged = mergeByStart(old, m_times[d], leaving[d], arriving[d]);
        if (wholeRetime()) tailAfterBackward(merged, arriving[d], m_s.splitBackward ? OpKind::W : OpKind::B);
        std::size_t same = 0;
        while (same < old.size() && same < merged.size() && old[same] == merged[same]) ++same;
        first[d] = same;
        m_s.order[d] = std::move(merged);
    }
    rebuildPositions();
    out.retimed = retime(std::move(first));
    return out;
}

} // namespace stagecraft
