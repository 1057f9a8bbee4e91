#include "passes/iteration_tail.h"

#include <algorithm>

namespace stagecraft {

namespace {

/// A gradient sync to post right after op `after` of its device's order.
struct SyncAfter {
    std::size_t after = 0;
    Op sync;
};

/// What the tail adds to each device: syncs inside its order, optimizer steps at its end.
struct TailPlan {
    std::vector<std::vector<SyncAfter>> syncs; ///< [device], by position
    std::vector<std::vector<Op>> steps;        ///< [device], in chunk order

    std::size_t added(std::size_t device) const { return syncs[device].size() + steps[device].size(); }
};

TailPlan planTail(const Schedule& in, const IterationTailOptions& options) {
    const std::size_t slots = std::size_t(in.pipes) * in.stagesPerPipe;
    const OpKind lastKind = in.splitBackward ? OpKind::W : OpKind::B;
    const std::size_t devices = std::size_t(std::max(in.devices, 0));
    // Which stage replicas already sync, and where each one's last backward op is: the sync is
    // posted right after it. "Last" in the order of a walk over devices, then positions.
    std::vector<char> hasSync(slots, 0), hasStep(slots, 0);
    constexpr std::size_t kNone = std::size_t(-1);
    std::vector<std::pair<std::size_t, std::size_t>> last(slots, {kNone, 0}); // (device, position)
    for (std::size_t d = 0; d < in.order.size(); ++d) {
        const std::vector<Op>& ops = in.order[d];
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const Op& op = ops[i];
            const std::size_t slot = std::size_t(op.pipe) * in.stagesPerPipe + op.stage;
            if (op.kind == OpKind::GradSync) hasSync[slot] = 1;
            if (op.kind == OpKind::Optimizer) hasStep[slot] = 1;
            if (op.kind == lastKind) last[slot] = {d, i};
        }
    }
    TailPlan plan;
    plan.syncs.resize(devices);
    plan.steps.resize(devices);
    if (options.gradientSync)
        // Orders beyond `devices` (a malformed schedule) pass through unchanged.
        for (std::size_t slot = 0; slot < slots; ++slot)
            if (!hasSync[slot] && last[slot].first < devices) {
                const Op& op = in.order[last[slot].first][last[slot].second];
                plan.syncs[last[slot].first].push_back(
                    {last[slot].second, Op{OpKind::GradSync, op.pipe, op.chunk, op.stage, -1}});
            }
    for (std::vector<SyncAfter>& syncs : plan.syncs)
        std::sort(syncs.begin(), syncs.end(),
                  [](const SyncAfter& a, const SyncAfter& b) { return a.after < b.after; });
    if (options.optimizer)
        for (std::size_t d = 0; d < devices; ++d) {
            // One step per stage this device holds, in chunk order.
            std::vector<Op>& steps = plan.steps[d];
            for (int pipe = 0; pipe < in.pipes; ++pipe)
                for (int stage = 0; stage < in.stagesPerPipe; ++stage)
                    if (std::size_t(in.slot(pipe, stage).device) == d &&
                        !hasStep[std::size_t(pipe) * in.stagesPerPipe + std::size_t(stage)])
                        steps.push_back(Op{OpKind::Optimizer, std::uint8_t(pipe),
                                           std::uint16_t(in.slot(pipe, stage).chunk), stage, -1});
            std::sort(steps.begin(), steps.end(), [](const Op& a, const Op& b) { return a.chunk < b.chunk; });
        }
    return plan;
}

/// Adds one device's syncs and steps to its order in place: the ops after a sync move up, from
/// the back, so a sync at the end of the order (1F1B, every device) moves nothing.
void applyTail(std::vector<Op>& ops, const std::vector<SyncAfter>& syncs, const std::vector<Op>& steps) {
    const std::size_t n = ops.size();
    if (ops.capacity() < n + syncs.size() + steps.size()) ops.reserve(n + syncs.size() + steps.size());
    ops.resize(n + syncs.size());
    std::size_t from = n, to = n + syncs.size();
    for (std::size_t j = syncs.size(); j-- > 0;) {
        while (from > syncs[j].after + 1) ops[--to] = ops[--from];
        ops[--to] = syncs[j].sync;
    }
    ops.insert(ops.end(), steps.begin(), steps.end());
}

} // namespace

Schedule addIterationTail(const Schedule& in, const IterationTailOptions& options) {
    const TailPlan plan = planTail(in, options);
    // Everything but the orders, which are copied with room for the tail: copying them whole
    // first would move every op twice. The binding fails to compile when Schedule gains a member,
    // so a new field cannot be dropped silently here.
    const auto& [name, devices, pipes, stagesPerPipe, microbatches, chunksPerDevice, splitBackward,
                 sequenceSlices, placement, order, notes, overlapped, wholeBackward] = in;
    Schedule out;
    out.name = name;
    out.devices = devices;
    out.pipes = pipes;
    out.stagesPerPipe = stagesPerPipe;
    out.microbatches = microbatches;
    out.chunksPerDevice = chunksPerDevice;
    out.splitBackward = splitBackward;
    out.sequenceSlices = sequenceSlices;
    out.placement = placement;
    out.notes = notes;
    // A sync follows the last backward op of its stage, so it never splits an overlapped slot
    // (whose backward ops come last in it).
    out.overlapped = overlapped;
    out.wholeBackward = wholeBackward;
    out.order.resize(order.size());
    for (std::size_t d = 0; d < order.size(); ++d) {
        const bool tailed = d < plan.syncs.size();
        out.order[d].reserve(order[d].size() + (tailed ? plan.added(d) : 0));
        out.order[d].assign(order[d].begin(), order[d].end());
        if (tailed) applyTail(out.order[d], plan.syncs[d], plan.steps[d]);
    }
    return out;
}

Schedule addIterationTail(Schedule&& in, const IterationTailOptions& options) {
    // In place: a million-op schedule is neither held twice nor copied.
    const TailPlan plan = planTail(in, options);
    Schedule out = std::move(in);
    for (std::size_t d = 0; d < plan.syncs.size() && d < out.order.size(); ++d)
        applyTail(out.order[d], plan.syncs[d], plan.steps[d]);
    return out;
}

} // namespace stagecraft
