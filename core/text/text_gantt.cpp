#include "text/text_gantt.h"

#include "error.h"
#include "ir/op_index.h"
#include "ir/op_label.h"
#include "ir/overlap.h"
#include "sim/list_scheduler.h"

#include <algorithm>

namespace stagecraft {

namespace {

const char* colorOf(OpKind kind) {
    switch (kind) {
    case OpKind::F:
        return "\x1b[44;97m";
    case OpKind::B:
        return "\x1b[43;30m";
    case OpKind::W:
        return "\x1b[42;30m";
    case OpKind::R: // the palette's yellow
        return "\x1b[103;30m";
    default:
        return "\x1b[45;97m";
    }
}

} // namespace

std::string renderTextGantt(const Schedule& s, const TextGanttOptions& options) {
    const OpIndex index(s);
    OpCosts steps = fullStageCosts(s, 0, 0, 0);
    for (auto& perKind : steps.duration) std::fill(perKind.begin(), perKind.end(), 1.0);
    // An overlapped slot takes two steps, its forward and its whole backward, drawn "F3&B7".
    // A whole backward takes its B's and its W's step.
    const ScheduleSlots slots = findSlots(s, index);
    steps.overlap = 2.0 / overlapSlotLength(s);
    const ListScheduleResult run = listSchedule(s, index, steps);
    if (!run.complete())
        throw ValidationError("schedule.deadlock", s.name,
                              "cannot draw '" + s.name + "': " + run.blocked.front().reason);

    std::size_t width = 1, lastStep = 0;
    bool hasSync = false;      // bidirectional schedules' eager syncs, torch CSVs' REDUCE_GRAD
    bool hasRecompute = false; // R ops (docs/recompute.md)
    for (int d = 0; d < s.devices; ++d)
        for (int i = 0; i < int(s.order[d].size()); ++i) {
            hasSync = hasSync || s.order[d][i].kind == OpKind::GradSync;
            hasRecompute = hasRecompute || s.order[d][i].kind == OpKind::R;
            width = std::max(width, opLabel(s, s.order[d][i]).size());
            lastStep = std::max(lastStep, std::size_t(run.time(d, i).end));
        }
    std::size_t shown = lastStep;
    if (options.maxSteps > 0) shown = std::min(shown, std::size_t(options.maxSteps));

    // A sliced schedule's micro-batch numbers are slice units: m counts micro-batches, k their slices.
    std::string out = s.name + ": p=" + std::to_string(s.devices) +
                      " m=" + std::to_string(s.microbatches / std::max(1, s.sequenceSlices)) +
                      (s.sequenceSlices > 1 ? " k=" + std::to_string(s.sequenceSlices) : "") +
                      " stages/pipe=" + std::to_string(s.stagesPerPipe) + (s.pipes > 1 ? " pipes=2" : "") +
                      ", " + std::to_string(lastStep) + " steps (every op one step)\n";
    const std::string deviceWidth = std::to_string(s.devices - 1);
    for (int d = 0; d < s.devices; ++d) {
        std::vector<const Op*> cells(shown, nullptr);
        std::vector<bool> joined(shown, false); // the cell and the next are one overlapped slot
        const auto& deviceSlots = slots.of[std::size_t(d)];
        std::size_t nextSlot = 0;
        for (int i = 0; i < int(s.order[d].size()); ++i) {
            const std::size_t step = std::size_t(run.time(d, i).start);
            if (nextSlot < deviceSlots.size() && deviceSlots[nextSlot].position == i) {
                // Its ops share the slot's start: the first two take its two steps (F and B of an
                // overlapped slot, whose W is part of its whole backward; B and W of a whole one).
                const Slot& slot = deviceSlots[nextSlot++];
                if (step < shown) cells[step] = &s.order[d][i], joined[step] = slot.overlapped;
                if (step + 1 < shown) cells[step + 1] = &s.order[d][i + 1];
                i += slot.length - 1;
                continue;
            }
            if (step < shown) cells[step] = &s.order[d][i];
        }
        std::string name = "D" + std::to_string(d);
        name.resize(deviceWidth.size() + 1, ' ');
        out += name + " |";
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const Op* op = cells[c];
            std::string label = op ? opLabel(s, *op) : ".";
            label.resize(width, ' ');
            if (op && options.color)
                out += std::string(colorOf(op->kind)) + label + "\x1b[0m";
            else
                out += label;
            out += joined[c] ? '&' : ' ';
        }
        out.back() = '|';
        if (shown < lastStep) out += " ...";
        out += '\n';
    }
    out +=
        "F forward, B backward" + std::string(s.splitBackward ? " (input gradient), W weight gradient" : "") +
        (chunksPerPipe(chunkShapeOf(s)) > 1 ? ", a/b/.. chunk" : "") + (hasRecompute ? ", R recompute" : "") +
        (s.pipes > 1 ? ", ' second pipe" : "") + (hasSync ? ", S gradient sync" : "") +
        (s.overlapped.empty() ? "" : ", F&B an overlapped slot (forward and whole backward)") + ", . idle\n";
    return out;
}

} // namespace stagecraft
