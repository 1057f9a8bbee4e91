#include "edit/fill_bubbles.h"

#include <algorithm>

namespace stagecraft {

namespace {

// Gaps shorter than this are rounding, not idle time.
constexpr double kMinGap = 1e-9;

/// Fill the idle gap before op `i` of device `d` (the device free from `free`) with the first
/// later op `fits` accepts that is ready by then and ends by the time op `i` starts.
template <typename Fits>
void fillGap(ScheduleEditor& editor, const OpCosts& costs, int d, std::size_t i, double free, Fits& fits,
             std::vector<Edit>& edits) {
    const Schedule& s = editor.schedule();
    const auto& ops = s.order[std::size_t(d)];
    const double waitsUntil = editor.time(d, i).start;
    for (std::size_t j = i + 1; j < ops.size(); ++j) {
        const Op op = ops[j];
        // The ops of a whole backward run as one: neither moves alone.
        if (!fits(op) || (s.splitBackward && op.kind != OpKind::F &&
                          editor.isWhole(Op{OpKind::B, op.pipe, 0, op.stage, op.mb})))
            continue;
        const double start = std::max(free, editor.inputsReadyAt(d, j));
        if (start + costs.of(op, s.stagesPerPipe) > waitsUntil + kMinGap) continue;
        Edit edit;
        edit.kind = EditKind::Move;
        edit.op = op;
        edit.anchor = MoveAnchor::Before;
        edit.other = ops[i];
        editor.apply(edit);
        edits.push_back(edit);
        return; // the op now sits at i
    }
}

/// Fill every idle gap of every device, in order, with the first later op `fits` accepts that is
/// ready by the gap's start and ends by the time the waiting op starts; each fill a move edit.
template <typename Fits>
std::vector<Edit> fillGaps(ScheduleEditor& editor, Fits&& fits) {
    std::vector<Edit> edits;
    const Schedule& s = editor.schedule();
    if (!editor.runs()) return edits;
    const OpCosts costs = editor.costs();
    for (int d = 0; d < s.devices; ++d) {
        const auto& ops = s.order[std::size_t(d)];
        // When the device is free: a gradient sync takes none of its time (posted, it runs on the
        // communication lane), so its own times are not the device's.
        double free = 0.0;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            if (ops[i].kind == OpKind::GradSync) continue;
            if (editor.time(d, i).start - free > kMinGap) fillGap(editor, costs, d, i, free, fits, edits);
            free = editor.time(d, i).end; // of the op that fills the gap, if one did
        }
    }
    return edits;
}

} // namespace

std::vector<Edit> fillBubbles(ScheduleEditor& editor) {
    return fillGaps(editor, [](const Op& op) { return op.kind == OpKind::W; });
}

std::vector<Edit> compact(ScheduleEditor& editor) {
    // Compute ops only: a sync or optimizer step waits for its stage's backwards, not for a gap.
    return fillGaps(editor, [](const Op& op) { return isComputeKind(op.kind); });
}

} // namespace stagecraft
