// The add and drop edits of ScheduleEditor: a gradient sync or optimizer step of one stage enters
// or leaves its device's order. A designer places a stage's sync where its collective should be
// posted (eagerly, between compute ops, as Chimera and BitPipe do; or later); dropping it hands
// the stage back to the iteration tail, which posts it right after the stage's last backward when
// the order is simulated (passes/iteration_tail.h). Each is the other's inverse. A stage's sync is
// one collective of all its replicas (the stage in each pipe: the validator's rule "replicas of a
// stage sync together"), so adding one replica's sync adds the others' where the tail would post
// them, and dropping one drops them all.
#include "edit/schedule_editor.h"
#include "error.h"
#include "ir/op_name.h"

#include <algorithm>

namespace stagecraft {

namespace {

[[noreturn]] void refuseTail(const std::string& id, const std::string& field, const Edit& edit,
                             const std::string& why) {
    throw ValidationError(id, field, formatEdit(edit, false) + ": " + why);
}

} // namespace

EditOutcome ScheduleEditor::addTail(const Edit& edit) {
    Op op = edit.op;
    if (!isTailKind(op.kind))
        refuseTail("edit.op", "op", edit,
                   "only a gradient sync (as 2SYNC) or an optimizer step (as 2OPT) is added; compute "
                   "ops move");
    if (op.pipe >= m_s.pipes || op.stage < 0 || op.stage >= m_s.stagesPerPipe)
        refuseTail("edit.op", "op", edit,
                   "the schedule has " + std::to_string(m_s.pipes) + " pipe(s) and stages 0.." +
                       std::to_string(m_s.stagesPerPipe - 1));
    if (const OpRef there = find(op); there.valid())
        refuseTail("edit.target", "op", edit,
                   "device " + std::to_string(there.device) + " runs it already, at position " +
                       std::to_string(there.index) + " (move it instead)");
    const StageSlot& slot = m_s.slot(op.pipe, op.stage);
    op.chunk = std::uint16_t(slot.chunk);
    op.mb = -1;
    const auto d = std::size_t(slot.device);
    auto& ops = m_s.order[d];
    std::int64_t index = edit.index;
    if (edit.anchor != MoveAnchor::Index) {
        const char* role = edit.anchor == MoveAnchor::After ? "after" : "before";
        const OpRef other = require(edit.other, role);
        if (std::size_t(other.device) != d)
            refuseTail("edit.target", role, edit,
                       opName(op, false, m_s.sequenceSlices) + " runs on device " + std::to_string(d) +
                           " (the device of stage " + std::to_string(op.stage) + " of pipe " +
                           std::to_string(op.pipe) + "), " +
                           opName(edit.other, m_s.splitBackward, m_s.sequenceSlices) + " on device " +
                           std::to_string(other.device));
        index = other.index + (edit.anchor == MoveAnchor::After ? 1 : 0);
    }
    if (index < 0 || std::size_t(index) > ops.size())
        refuseTail("edit.target", "index", edit,
                   "device " + std::to_string(d) + " runs " + std::to_string(ops.size()) +
                       " ops: an added op goes to an index 0.." + std::to_string(ops.size()));
    const auto i = std::size_t(index);
    // Not between a whole backward's B and its W: they run as one slot.
    if (m_s.splitBackward && i > 0 && i < ops.size() && ops[i - 1].kind == OpKind::B && isWhole(ops[i - 1]))
        refuseTail("edit.slot", "index", edit,
                   "it cannot go between " + opName(ops[i - 1], true, m_s.sequenceSlices) +
                       " and its W: they run as one whole backward (split " +
                       opName(ops[i - 1], false, m_s.sequenceSlices) + " first)");
    insertTail(d, i, op);
    // The stage's replicas on the other pipes sync in the same collective: theirs come along, each
    // right after its stage's last backward (where the iteration tail would post it).
    if (op.kind == OpKind::GradSync)
        for (int pipe = 0; pipe < m_s.pipes; ++pipe) {
            const Op replica{OpKind::GradSync, std::uint8_t(pipe),
                             std::uint16_t(m_s.slot(pipe, op.stage).chunk), op.stage, -1};
            if (!find(replica).valid())
                insertTail(std::size_t(m_s.slot(pipe, op.stage).device), afterLastBackward(pipe, op.stage),
                           replica);
        }
    EditOutcome out{{Edit{EditKind::Drop, op, false, MoveAnchor::Index, {}, 0}}, 0, {}};
    out.retimed = retimeWhole();
    return out;
}

void ScheduleEditor::insertTail(std::size_t d, std::size_t i, const Op& op) {
    auto& ops = m_s.order[d];
    ops.insert(ops.begin() + std::ptrdiff_t(i), op);
    m_times[d].insert(m_times[d].begin() + std::ptrdiff_t(i), OpTime{});
    m_wait[d].insert(m_wait[d].begin() + std::ptrdiff_t(i), 0);
    for (std::size_t k = i; k < ops.size(); ++k) posOf(ops[k]) = std::int32_t(k);
    m_busy += busyOf(op);
    ++m_tailOps;
}

std::size_t ScheduleEditor::afterLastBackward(int pipe, int stage) const {
    const OpKind last = m_s.splitBackward ? OpKind::W : OpKind::B;
    std::size_t after = 0; // a pipe that runs no micro-batch posts it first
    for (int mb = 0; mb < m_s.microbatches; ++mb)
        if (const OpRef at = find(Op{last, std::uint8_t(pipe), 0, stage, mb}); at.valid())
            after = std::max(after, std::size_t(at.index) + 1);
    return after;
}

void ScheduleEditor::eraseTail(OpRef at) {
    const auto d = std::size_t(at.device), i = std::size_t(at.index);
    auto& ops = m_s.order[d];
    const Op op = ops[i];
    posOf(op) = -1;
    ops.erase(ops.begin() + std::ptrdiff_t(i));
    m_times[d].erase(m_times[d].begin() + std::ptrdiff_t(i));
    m_wait[d].erase(m_wait[d].begin() + std::ptrdiff_t(i));
    for (std::size_t k = i; k < ops.size(); ++k) posOf(ops[k]) = std::int32_t(k);
    m_busy -= busyOf(op);
    --m_tailOps;
}

EditOutcome ScheduleEditor::dropTail(const Edit& edit) {
    if (!isTailKind(edit.op.kind))
        refuseTail("edit.op", "op", edit,
                   "only a gradient sync (as 2SYNC) or an optimizer step (as 2OPT) is dropped; compute "
                   "ops stay in the order");
    const OpRef at = require(edit.op, "op");
    // A gradient sync is one collective of its stage's replicas: all of theirs leave. Undo adds
    // the first back (which brings the others along) and moves each other one to its place.
    std::vector<OpRef> leaving{at};
    if (edit.op.kind == OpKind::GradSync)
        for (int pipe = 0; pipe < m_s.pipes; ++pipe)
            if (const OpRef r = find(Op{OpKind::GradSync, std::uint8_t(pipe), 0, edit.op.stage, -1});
                r.valid() && !(r == at))
                leaving.push_back(r);
    std::sort(leaving.begin(), leaving.end(), [](const OpRef& a, const OpRef& b) {
        return a.device != b.device ? a.device < b.device : a.index < b.index;
    });
    EditOutcome out{{}, 0, {}};
    for (const OpRef& r : leaving)
        out.inverse.push_back(Edit{out.inverse.empty() ? EditKind::Add : EditKind::Move,
                                   m_s.order[std::size_t(r.device)][std::size_t(r.index)],
                                   false,
                                   MoveAnchor::Index,
                                   {},
                                   std::int64_t(r.index)});
    for (auto r = leaving.rbegin(); r != leaving.rend(); ++r) eraseTail(*r);
    if (wholeRetime()) {
        out.retimed = retimeWhole();
    } else {
        // Back to a compute-only order: every op timed from scratch, once, so that later edits
        // propagate from times the incremental rule made.
        std::fill(m_unresolved.begin(), m_unresolved.end(), 0);
        out.retimed = retime(std::vector<std::size_t>(std::size_t(m_s.devices), 0));
    }
    return out;
}

} // namespace stagecraft
