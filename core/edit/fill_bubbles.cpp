#include "edit/fill_bubbles.h"

#include <algorithm>

namespace stagecraft {

namespace {

// Gaps shorter than this are rounding, not idle time.
constexpr double kMinGap = 1e-9;

} // namespace

std::vector<Edit> fillBubbles(ScheduleEditor& editor) {
    std::vector<Edit> edits;
    const Schedule& s = editor.schedule();
    if (!editor.runs() || !s.splitBackward) return edits;
    const OpCosts costs = editor.costs();
    for (int d = 0; d < s.devices; ++d) {
        const auto& ops = s.order[std::size_t(d)];
        for (std::size_t i = 1; i < ops.size(); ++i) {
            const double free = editor.time(d, i - 1).end;
            const double waitsUntil = editor.time(d, i).start;
            if (waitsUntil - free <= kMinGap) continue;
            for (std::size_t j = i + 1; j < ops.size(); ++j) {
                const Op w = ops[j];
                // The W of a whole backward is part of its B: it never moves alone.
                if (w.kind != OpKind::W || editor.isWhole(Op{OpKind::B, w.pipe, 0, w.stage, w.mb})) continue;
                const OpRef b = editor.find(Op{OpKind::B, w.pipe, 0, w.stage, w.mb});
                if (!b.valid() || std::size_t(b.index) >= i) continue;
                const double start = std::max(free, editor.time(d, std::size_t(b.index)).end);
                if (start + costs.of(w, s.stagesPerPipe) > waitsUntil + kMinGap) continue;
                Edit edit;
                edit.kind = EditKind::Move;
                edit.op = w;
                edit.anchor = MoveAnchor::Before;
                edit.other = ops[i];
                editor.apply(edit);
                edits.push_back(edit);
                break; // the W now sits at i: look at the gap after it
            }
        }
    }
    return edits;
}

} // namespace stagecraft
