#include "edit/block_move.h"

#include "error.h"
#include "ir/op_name.h"

#include <algorithm>
#include <string>

namespace stagecraft {
namespace {

bool sameOp(const Op& a, const Op& b) {
    return a.kind == b.kind && a.pipe == b.pipe && a.stage == b.stage && a.mb == b.mb;
}

} // namespace

std::vector<Op> orderedBlock(const ScheduleEditor& editor, const std::vector<Op>& block) {
    const bool split = editor.schedule().splitBackward;
    const int slices = editor.schedule().sequenceSlices;
    std::vector<std::pair<std::int32_t, Op>> placed;
    int device = -1;
    for (const Op& op : block) {
        const OpRef at = editor.find(op);
        if (!at.valid())
            throw ValidationError("edit.op", "block",
                                  opName(op, split, slices) + ": the schedule has no such op");
        if (device >= 0 && at.device != device)
            throw ValidationError("edit.target", "block",
                                  opName(op, split, slices) + " runs on device " + std::to_string(at.device) +
                                      ", " + opName(placed.front().second, split, slices) + " on device " +
                                      std::to_string(device) + ": a block is ops of one device");
        device = at.device;
        placed.emplace_back(at.index, op);
    }
    std::sort(placed.begin(), placed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Op> ordered;
    ordered.reserve(placed.size());
    for (const auto& [index, op] : placed) ordered.push_back(op);
    return ordered;
}

std::vector<Edit> blockMove(const ScheduleEditor& editor, const std::vector<Op>& block, MoveAnchor anchor,
                            const Op& other) {
    const std::vector<Op> ops = orderedBlock(editor, block);
    if (std::any_of(ops.begin(), ops.end(), [&](const Op& op) { return sameOp(op, other); }))
        throw ValidationError(
            "edit.target", anchor == MoveAnchor::After ? "after" : "before",
            opName(other, editor.schedule().splitBackward, editor.schedule().sequenceSlices) +
                " is in the block: a block moves next to an op outside it");
    std::vector<Edit> edits;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        Edit edit;
        edit.op = ops[i];
        edit.anchor = i == 0 ? anchor : MoveAnchor::After;
        edit.other = i == 0 ? other : ops[i - 1];
        edits.push_back(edit);
    }
    return edits;
}

std::vector<Edit> blockShift(const ScheduleEditor& editor, const std::vector<Op>& block, std::int64_t by) {
    std::vector<Op> ops = orderedBlock(editor, block);
    if (by > 0) std::reverse(ops.begin(), ops.end());
    std::vector<Edit> edits;
    for (const Op& op : ops) {
        Edit edit;
        edit.kind = EditKind::Shift;
        edit.op = op;
        edit.index = by;
        edits.push_back(edit);
    }
    return edits;
}

} // namespace stagecraft
