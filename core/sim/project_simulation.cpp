#include "sim/project_simulation.h"

#include "ir/op_index.h"
#include "passes/iteration_tail.h"
#include "sim/simulator.h"

#include <algorithm>

namespace stagecraft {

namespace {

/// Cross-device data dependencies of the schedule: one pipeline transfer each.
std::size_t countTransfers(const OpIndex& index) {
    std::size_t transfers = 0;
    for (std::size_t gid = 0; gid < index.opCount(); ++gid) {
        const OpDeps& deps = index.depsOf(gid);
        for (const std::int32_t dep : {deps.first, deps.second})
            if (dep >= 0 && index.deviceOf(std::size_t(dep)) != index.deviceOf(gid)) ++transfers;
    }
    return transfers;
}

} // namespace

Prediction predict(const Project& project, const Schedule& schedule) {
    Prediction out;
    out.schedule = addIterationTail(schedule, IterationTailOptions{});
    const Schedule& s = out.schedule;
    out.setup = buildCostSetup(project, s);
    const OpIndex index(s);
    out.timeline = simulate(s, index, out.setup.costs);

    ScheduleReport& r = out.report;
    r.schedule = s.name;
    r.unitless = out.setup.unitless;
    r.costs = out.setup.summary;
    r.time = computeTimeMetrics(s, index, out.timeline, &out.setup.costs);
    r.memory = computeMemory(s, out.timeline, out.setup.memory);
    r.iterationUs = r.time.makespan;
    if (r.unitless || r.iterationUs <= 0) return out;

    const double dp = std::max(1, project.parallel.dp);
    const double tp = std::max(1, project.parallel.tp);
    const double gpus = double(s.devices) * dp * tp;
    const double seconds = r.iterationUs * 1e-6;
    r.samplesPerSecond = double(s.microbatches) * project.model.microBatchSize * dp / seconds;
    r.tokensPerSecond = r.samplesPerSecond * project.model.seqLen;
    r.tflopsPerGpu = out.setup.flopsPerIteration / seconds / gpus / 1e12;
    r.mfu = project.cluster.peakTflops > 0 ? r.tflopsPerGpu / project.cluster.peakTflops : 0.0;
    r.p2pBytes = double(countTransfers(index)) * out.setup.p2pBytesPerTransfer * dp * tp;
    r.collectiveBytes = out.setup.collectiveBytesPerIteration;
    return out;
}

} // namespace stagecraft
