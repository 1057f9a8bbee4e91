#include "passes/iteration_tail.h"

#include <algorithm>

namespace stagecraft {

namespace {

Schedule withTail(const Schedule& in, const IterationTailOptions& options, Schedule* consumed) {
    const std::size_t slots = std::size_t(in.pipes) * in.stagesPerPipe;
    const OpKind lastKind = in.splitBackward ? OpKind::W : OpKind::B;
    // Which stage replicas already sync, and how many backward ops each still has to run.
    std::vector<char> hasSync(slots, 0);
    std::vector<int> remaining(slots, 0);
    for (const auto& ops : in.order)
        for (const Op& op : ops) {
            const std::size_t slot = std::size_t(op.pipe) * in.stagesPerPipe + op.stage;
            if (op.kind == OpKind::GradSync) hasSync[slot] = 1;
            if (op.kind == lastKind) ++remaining[slot];
        }
    // Everything but the orders, which are rebuilt below: copying them first would cost a pass
    // over every op. The binding fails to compile when Schedule gains a member, so a new field
    // cannot be dropped silently here.
    const auto& [name, devices, pipes, stagesPerPipe, microbatches, chunksPerDevice, splitBackward, placement,
                 order, notes, overlapped, wholeBackward] = in;
    Schedule out;
    out.name = name;
    out.devices = devices;
    out.pipes = pipes;
    out.stagesPerPipe = stagesPerPipe;
    out.microbatches = microbatches;
    out.chunksPerDevice = chunksPerDevice;
    out.splitBackward = splitBackward;
    out.placement = placement;
    out.notes = notes;
    // A sync follows the last backward op of its stage, so it never splits an overlapped slot
    // (whose backward ops come last in it).
    out.overlapped = overlapped;
    out.wholeBackward = wholeBackward;
    out.order.resize(order.size());
    // Orders beyond `devices` (a malformed schedule) pass through unchanged.
    for (std::size_t d = std::size_t(std::max(devices, 0)); d < order.size(); ++d) out.order[d] = order[d];
    for (int d = 0; d < in.devices; ++d) {
        std::vector<Op> ops;
        ops.reserve(in.order[d].size() + 2 * std::size_t(in.chunksPerDevice));
        for (const Op& op : in.order[d]) {
            ops.push_back(op);
            const std::size_t slot = std::size_t(op.pipe) * in.stagesPerPipe + op.stage;
            if (op.kind == lastKind && --remaining[slot] == 0 && options.gradientSync && !hasSync[slot])
                ops.push_back(Op{OpKind::GradSync, op.pipe, op.chunk, op.stage, -1});
        }
        if (options.optimizer) {
            // One step per stage this device holds, in chunk order.
            std::vector<Op> steps;
            for (int pipe = 0; pipe < in.pipes; ++pipe)
                for (int stage = 0; stage < in.stagesPerPipe; ++stage)
                    if (in.slot(pipe, stage).device == d)
                        steps.push_back(Op{OpKind::Optimizer, std::uint8_t(pipe),
                                           std::uint16_t(in.slot(pipe, stage).chunk), stage, -1});
            std::sort(steps.begin(), steps.end(), [](const Op& a, const Op& b) { return a.chunk < b.chunk; });
            ops.insert(ops.end(), steps.begin(), steps.end());
        }
        out.order[d] = std::move(ops);
        if (consumed) std::vector<Op>().swap(consumed->order[std::size_t(d)]);
    }
    return out;
}

} // namespace

Schedule addIterationTail(const Schedule& in, const IterationTailOptions& options) {
    return withTail(in, options, nullptr);
}

Schedule addIterationTail(Schedule&& in, const IterationTailOptions& options) {
    return withTail(in, options, &in);
}

} // namespace stagecraft
