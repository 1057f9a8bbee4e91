#include "sim/memory_model.h"

#include "error.h"

#include <algorithm>

namespace stagecraft {

MemoryInputs unitMemoryInputs(const Schedule& s) {
    MemoryInputs inputs;
    const double perStage = s.stageFraction();
    inputs.stages.assign(std::size_t(s.pipes) * s.stagesPerPipe,
                         StageMemory{0.0, perStage, s.splitBackward ? perStage : 0.0});
    return inputs;
}

MemoryReport computeMemory(const Schedule& s, const Timeline& timeline, const MemoryInputs& inputs) {
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
    // equal times releases go first so back-to-back ops do not double count.
    std::vector<std::vector<std::pair<double, double>>> changes(std::size_t(s.devices));
    // At most one change per op of the device in a timeline of this schedule (a hint only).
    for (std::size_t d = 0; d < changes.size() && d < s.order.size(); ++d)
        changes[d].reserve(s.order[d].size());
    for (const TimelineEvent& e : timeline.events) {
        if (e.lane != Lane::Compute || e.device < 0 || e.device >= s.devices) continue;
        if (e.op.pipe >= s.pipes || e.op.stage < 0 || e.op.stage >= s.stagesPerPipe) continue;
        const StageMemory& m = inputs.stages[std::size_t(e.op.pipe) * s.stagesPerPipe + e.op.stage];
        auto& c = changes[e.device];
        switch (e.op.kind) {
        case OpKind::F:
            c.emplace_back(e.start, m.activationBytes);
            break;
        case OpKind::B:
            c.emplace_back(e.end,
                           -(s.splitBackward ? m.activationBytes - m.keptForWBytes : m.activationBytes));
            break;
        case OpKind::W:
            c.emplace_back(e.end, -m.keptForWBytes);
            break;
        default:
            break;
        }
    }
    for (int d = 0; d < s.devices; ++d) {
        auto& c = changes[d];
        const auto byTimeReleasesFirst = [](const auto& a, const auto& b) {
            return a.first < b.first || (a.first == b.first && a.second < b.second);
        };
        // A simulated device runs one compute op at a time, so its changes usually arrive in
        // order already; sorting a sorted range stably would leave it as it is.
        if (!std::is_sorted(c.begin(), c.end(), byTimeReleasesFirst))
            std::stable_sort(c.begin(), c.end(), byTimeReleasesFirst);
        DeviceMemory& dm = report.devices[d];
        double bytes = dm.staticBytes;
        dm.peakBytes = bytes;
        dm.curve.reserve(c.size() + 1);
        dm.curve.emplace_back(0.0, bytes);
        for (const auto& [time, delta] : c) {
            bytes += delta;
            if (!dm.curve.empty() && dm.curve.back().first == time)
                dm.curve.back().second = bytes;
            else
                dm.curve.emplace_back(time, bytes);
            if (bytes > dm.peakBytes) dm.peakBytes = bytes, dm.peakTime = time;
        }
        if (dm.peakBytes > report.devices[report.worstDevice].peakBytes) report.worstDevice = d;
        // Released as soon as its curve exists: the changes and the curves of a million-op
        // schedule are never all held at once.
        std::vector<std::pair<double, double>>().swap(c);
    }
    if (inputs.limitBytes > 0) {
        const double worst = report.devices[report.worstDevice].peakBytes;
        report.fits = worst <= inputs.limitBytes;
        report.overBytes = std::max(0.0, worst - inputs.limitBytes);
    }
    return report;
}

} // namespace stagecraft
