#include "sim/memory_model.h"

#include "error.h"
#include "ir/large_array.h"

#include <algorithm>

namespace stagecraft {

MemoryInputs unitMemoryInputs(const Schedule& s) {
    MemoryInputs inputs;
    const double perStage = s.stageFraction() * s.sliceShare();
    inputs.stages.assign(std::size_t(s.pipes) * s.stagesPerPipe,
                         StageMemory{0.0, perStage, s.splitBackward ? perStage : 0.0});
    return inputs;
}

OpMemoryChange opMemoryChange(const StageMemory& m, OpKind kind, bool splitBackward, bool recomputed) {
    // What the backward and W free of a recomputed op includes its checkpoint.
    const double checkpoint = recomputed ? m.checkpointBytes : 0.0;
    switch (kind) {
    case OpKind::F:
        return {recomputed ? m.checkpointBytes : m.activationBytes, 0.0};
    case OpKind::R:
        return {m.activationBytes, 0.0};
    case OpKind::B:
        return {0.0, splitBackward ? m.activationBytes - m.keptForWBytes : m.activationBytes + checkpoint};
    case OpKind::W:
        return {0.0, m.keptForWBytes + checkpoint};
    default:
        return {};
    }
}

OpMemoryChange opMemoryChange(const MemoryInputs& inputs, std::size_t slot, const Op& op, bool splitBackward,
                              bool recomputed) {
    OpMemoryChange change = opMemoryChange(inputs.stages[slot], op.kind, splitBackward, recomputed);
    if (!inputs.sliceScale.empty() && op.mb >= 0) {
        const std::size_t slices = inputs.sliceScale.size() / std::max<std::size_t>(1, inputs.stages.size());
        const double weight = inputs.sliceScale[slot * slices + std::size_t(op.mb) % slices];
        change.allocated *= weight;
        change.freed *= weight;
    }
    if (inputs.slices > 1 && op.kind == OpKind::B && op.mb >= 0) {
        const int slice = op.mb % inputs.slices;
        const double gradients = inputs.stages[slot].keyValueGradientBytes;
        if (slice == inputs.slices - 1) change.allocated += gradients;
        if (slice == 0) change.freed += gradients;
    }
    return change;
}

namespace {

using Change = std::pair<double, double>; // (time, delta bytes)

/// The running state of one device's curve while its changes are applied in time order.
struct DeviceRun {
    double bytes = 0;
    Change last = {};
    std::size_t changes = 0;
    bool keepCurve = true;
    bool unordered = false;

    void start(DeviceMemory& dm, bool curve, std::size_t capacityHint) {
        bytes = dm.staticBytes;
        dm.peakBytes = bytes;
        dm.peakTime = 0;
        changes = 0;
        keepCurve = curve;
        dm.curve.clear();
        if (!keepCurve) return;
        reserveLarge(dm.curve, capacityHint);
        dm.curve.emplace_back(0.0, bytes);
    }
    void apply(DeviceMemory& dm, const Change& c) {
        const auto& [time, delta] = c;
        bytes += delta;
        if (keepCurve) {
            if (dm.curve.back().first == time)
                dm.curve.back().second = bytes;
            else
                dm.curve.emplace_back(time, bytes);
        }
        if (bytes > dm.peakBytes) dm.peakBytes = bytes, dm.peakTime = time;
        last = c;
        ++changes;
    }
};

/// Which (pipe, stage, micro-batch) the timeline recomputes: [(pipe * S + stage) * m + mb], empty
/// when it has no R (most timelines: then nothing is allocated). A measured trace's R counts.
std::vector<bool> recomputedOf(const Schedule& s, const Timeline& timeline) {
    std::vector<bool> recomputed;
    const std::size_t m = std::size_t(std::max(s.microbatches, 0));
    for (const TimelineEvent& e : timeline.events) {
        if (e.lane != Lane::Compute || e.op.kind != OpKind::R || e.op.pipe >= s.pipes || e.op.stage < 0 ||
            e.op.stage >= s.stagesPerPipe || e.op.mb < 0 || std::size_t(e.op.mb) >= m)
            continue;
        if (recomputed.empty()) recomputed.assign(std::size_t(s.pipes) * s.stagesPerPipe * m, false);
        recomputed[(std::size_t(e.op.pipe) * s.stagesPerPipe + e.op.stage) * m + e.op.mb] = true;
    }
    return recomputed;
}

/// Calls `f(device, change)` for every memory change of the compute events, in timeline order.
template <typename F>
void forEachChange(const Schedule& s, const Timeline& timeline, const MemoryInputs& inputs,
                   const std::vector<bool>& recomputed, F&& f) {
    const std::size_t m = std::size_t(std::max(s.microbatches, 0));
    for (const TimelineEvent& e : timeline.events) {
        if (e.lane != Lane::Compute || e.device < 0 || e.device >= s.devices) continue;
        if (e.op.pipe >= s.pipes || e.op.stage < 0 || e.op.stage >= s.stagesPerPipe) continue;
        const std::size_t slot = std::size_t(e.op.pipe) * s.stagesPerPipe + e.op.stage;
        const bool again = !recomputed.empty() && e.op.mb >= 0 && std::size_t(e.op.mb) < m &&
                           recomputed[slot * m + std::size_t(e.op.mb)];
        const OpMemoryChange change = opMemoryChange(inputs, slot, e.op, s.splitBackward, again);
        // Every compute op is one change, even of 0 bytes (curves keep a point per op).
        if (e.op.kind == OpKind::F || e.op.kind == OpKind::R)
            f(e.device, Change{e.start, change.allocated});
        else if (e.op.kind == OpKind::B || e.op.kind == OpKind::W) {
            // A sliced micro-batch's last slice's B takes the key-value gradients at its start.
            if (change.allocated > 0) f(e.device, Change{e.start, change.allocated});
            f(e.device, Change{e.end, -change.freed});
        }
    }
}

} // namespace

MemoryReport computeMemory(const Schedule& s, const Timeline& timeline, const MemoryInputs& inputs,
                           MemoryDetail detail) {
    const std::size_t slots = std::size_t(s.pipes) * s.stagesPerPipe;
    if (inputs.stages.size() != slots)
        throw ValidationError("memory.inputs", "stages",
                              "memory inputs describe " + std::to_string(inputs.stages.size()) +
                                  " stage replicas, schedule '" + s.name + "' has " + std::to_string(slots));
    MemoryReport report;
    report.limitBytes = inputs.limitBytes;
    report.limitIsGpuMemory = inputs.limitIsGpuMemory;
    report.devices.resize(std::size_t(s.devices));
    for (int pipe = 0; pipe < s.pipes; ++pipe)
        for (int stage = 0; stage < s.stagesPerPipe; ++stage)
            report.devices[s.slot(pipe, stage).device].staticBytes +=
                inputs.stages[std::size_t(pipe) * s.stagesPerPipe + stage].staticBytes;

    // Changes per device: (time, delta). Allocation at an op's start, release at its end; at
    // equal times releases go first so back-to-back ops do not double count. A simulated device
    // runs one compute op at a time, so its changes arrive in that order already: they are
    // applied as they come, one pass over the events and no per-change array. A device whose
    // changes do not arrive in order (a measured trace) is redone from its sorted changes.
    const auto byTimeReleasesFirst = [](const Change& a, const Change& b) {
        return a.first < b.first || (a.first == b.first && a.second < b.second);
    };
    std::vector<DeviceRun> runs(std::size_t(s.devices));
    for (int d = 0; d < s.devices; ++d) {
        DeviceMemory& dm = report.devices[std::size_t(d)];
        runs[std::size_t(d)].start(dm, detail == MemoryDetail::Curves,
                                   std::size_t(d) < s.order.size() ? s.order[std::size_t(d)].size() + 1 : 1);
    }
    bool anyUnordered = false;
    const std::vector<bool> recomputed = recomputedOf(s, timeline);
    forEachChange(s, timeline, inputs, recomputed, [&](int device, const Change& c) {
        DeviceRun& run = runs[std::size_t(device)];
        if (run.unordered) return;
        if (run.changes > 0 && byTimeReleasesFirst(c, run.last)) {
            run.unordered = anyUnordered = true;
            return;
        }
        run.apply(report.devices[std::size_t(device)], c);
    });
    if (anyUnordered) {
        // Rare: collect the changes of the unordered devices only, sort them, apply them again.
        std::vector<std::vector<Change>> changes(std::size_t(s.devices));
        forEachChange(s, timeline, inputs, recomputed, [&](int device, const Change& c) {
            if (runs[std::size_t(device)].unordered) changes[std::size_t(device)].push_back(c);
        });
        for (int d = 0; d < s.devices; ++d) {
            if (!runs[std::size_t(d)].unordered) continue;
            auto& c = changes[std::size_t(d)];
            std::stable_sort(c.begin(), c.end(), byTimeReleasesFirst);
            DeviceMemory& dm = report.devices[std::size_t(d)];
            DeviceRun& run = runs[std::size_t(d)];
            run.start(dm, detail == MemoryDetail::Curves, c.size() + 1);
            for (const Change& change : c) run.apply(dm, change);
            std::vector<Change>().swap(c);
        }
    }
    for (int d = 0; d < s.devices; ++d)
        if (report.devices[std::size_t(d)].peakBytes >
            report.devices[std::size_t(report.worstDevice)].peakBytes)
            report.worstDevice = d;
    if (inputs.limitBytes > 0) {
        const double worst = report.devices[report.worstDevice].peakBytes;
        report.fits = worst <= inputs.limitBytes;
        report.overBytes = std::max(0.0, worst - inputs.limitBytes);
    }
    return report;
}

} // namespace stagecraft
