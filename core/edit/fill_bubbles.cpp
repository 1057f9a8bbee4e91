#include "edit/fill_bubbles.h"

#include <algorithm>

namespace stagecraft {

namespace {

// Gaps shorter than this are rounding, not idle time.
constexpr double kMinGap = 1e-9;

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
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const double free = i > 0 ? editor.time(d, i - 1).end : 0.0;
            const double waitsUntil = editor.time(d, i).start;
            if (waitsUntil - free <= kMinGap) continue;
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
                break; // the op now sits at i: look at the gap after it
            }
        }
    }
    return edits;
}

} // namespace

std::vector<Edit> fillBubbles(ScheduleEditor& editor) {
    return fillGaps(editor, [](const Op& op) { return op.kind == OpKind::W; });
}

std::vector<Edit> compact(ScheduleEditor& editor) {
    return fillGaps(editor, [](const Op&) { return true; });
}

} // namespace stagecraft
