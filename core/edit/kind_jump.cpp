#include "edit/kind_jump.h"

#include "error.h"
#include "ir/op_name.h"

#include <string>

namespace stagecraft {
namespace {

bool sameSlot(const Op& a, const Op& b) {
    return a.pipe == b.pipe && a.stage == b.stage && a.mb == b.mb;
}

} // namespace

Edit kindJump(const ScheduleEditor& editor, const Op& op, bool later) {
    const Schedule& s = editor.schedule();
    const OpRef at = editor.find(op);
    if (!at.valid())
        throw ValidationError(
            "edit.op", "op", opName(op, s.splitBackward, s.sequenceSlices) + ": the schedule has no such op");
    const std::vector<Op>& ops = s.order[std::size_t(at.device)];
    const std::int64_t n = std::int64_t(ops.size()), i = at.index;
    // A whole backward's B and W are one unit of kind B: [first, last] of the unit at k.
    const auto unitAt = [&](std::int64_t k, std::int64_t& first, std::int64_t& last) {
        first = last = k;
        const Op& o = ops[std::size_t(k)];
        if (o.kind == OpKind::B && k + 1 < n && ops[std::size_t(k + 1)].kind == OpKind::W &&
            sameSlot(o, ops[std::size_t(k + 1)]) && editor.isWhole(o))
            last = k + 1;
        else if (o.kind == OpKind::W && k > 0 && ops[std::size_t(k - 1)].kind == OpKind::B &&
                 sameSlot(o, ops[std::size_t(k - 1)]) && editor.isWhole(ops[std::size_t(k - 1)]))
            first = k - 1;
        return ops[std::size_t(first)].kind;
    };
    const std::int64_t step = later ? 1 : -1;
    std::int64_t first = 0, last = 0;
    std::int64_t own0 = i, own1 = i; // the moved op's own unit (a whole backward is refused by the editor)
    unitAt(i, own0, own1);
    const std::int64_t next = later ? own1 + 1 : own0 - 1;
    if (next < 0 || next >= n)
        throw ValidationError("edit.target", later ? "after" : "before",
                              opName(op, s.splitBackward, s.sequenceSlices) + " is the " +
                                  (later ? "last" : "first") + " op of device " + std::to_string(at.device) +
                                  ": there is nothing " + (later ? "after" : "before") + " it to jump over");
    const OpKind kind = unitAt(next, first, last);
    std::int64_t edge = later ? last : first; // the farthest op jumped over
    for (std::int64_t k = edge + step; k >= 0 && k < n; k = edge + step) {
        if (unitAt(k, first, last) != kind) break;
        edge = later ? last : first;
    }
    Edit edit;
    edit.kind = EditKind::Shift;
    edit.op = op;
    edit.index = edge - i;
    return edit;
}

} // namespace stagecraft
