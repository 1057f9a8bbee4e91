#include "sim/generate_request.h"

#include "error.h"
#include "sim/cost_model.h"

#include <algorithm>
#include <cstdio>

namespace stagecraft {
namespace {

// A schedule with the generator's stages and no ops: what the cost and memory models need to
// price each stage before the order exists. Stages sit on devices as in a looped placement; for
// costs per stage only the stage's share of the layers matters.
Schedule probeSchedule(const GeneratorInfo& info, const ScheduleParams& params) {
    const int stages = info.stagesPerPipe(params);
    std::vector<std::vector<StageSlot>> placement(std::size_t(info.pipes),
                                                  loopedPlacement(params.pp, stages));
    if (info.pipes == 2) std::reverse(placement[1].begin(), placement[1].end());
    // splitBackward: B and W are priced separately, whatever the generator then makes of them.
    Schedule probe = makeSchedule(std::string(info.name), params.pp, params.microbatches, placement, true);
    return probe;
}

std::string gib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GiB", bytes / double(1ull << 30));
    return text;
}

} // namespace

GenerateRequest generateRequest(const Project& project, const GeneratorInfo& info) {
    GenerateRequest request;
    request.params = effectiveParams(info, scheduleParams(project));
    if (!info.usesCosts) return request;

    const Schedule probe = probeSchedule(info, request.params);
    const CostSetup setup = buildCostSetup(project, probe);
    const int stages = probe.stagesPerPipe;
    request.stageCosts.resize(std::size_t(stages));
    for (int s = 0; s < stages; ++s) {
        const auto& d = setup.costs.duration;
        request.stageCosts[std::size_t(s)] = {d[int(OpKind::F)][std::size_t(s)],
                                              d[int(OpKind::B)][std::size_t(s)],
                                              d[int(OpKind::W)][std::size_t(s)]};
    }
    request.comm = setup.costs.comm;
    const StageMemory& first = setup.memory.stages[0];
    if (!setup.unitless && first.activationBytes > 0)
        request.keptForW = std::clamp(first.keptForWBytes / first.activationBytes, 0.0, 1.0);

    // A limit in activations is the planning limit as given; it takes precedence over the bytes.
    if (project.memory.limitMicrobatches > 0) {
        request.memoryLimit = project.memory.limitMicrobatches;
        return request;
    }
    const double limit = setup.memory.limitBytes;
    if (setup.unitless || limit <= 0) return request;
    std::vector<double> staticBytes(std::size_t(probe.devices), 0.0);
    for (int pipe = 0; pipe < probe.pipes; ++pipe)
        for (int s = 0; s < stages; ++s)
            staticBytes[std::size_t(probe.slot(pipe, s).device)] +=
                setup.memory.stages[std::size_t(pipe * stages + s)].staticBytes;
    const double worstStatic = *std::max_element(staticBytes.begin(), staticBytes.end());
    // M_a: one micro-batch's activations of a full stage (layers / p); chunk stages hold a share.
    const double fullStageActivation = setup.memory.stages[0].activationBytes / probe.stageFraction();
    if (worstStatic >= limit)
        throw ValidationError(
            "generator.memory", "memory.limit_gib",
            "memory.limit_gib = " + gib(limit) + ": weights, gradients and optimizer state " + "alone take " +
                gib(worstStatic) + " on one device, so " + std::string(info.name) +
                " has no room for activations; raise the limit or shard with memory.zero_stage");
    request.memoryLimit = fullStageActivation > 0 ? (limit - worstStatic) / fullStageActivation : 0;
    return request;
}

} // namespace stagecraft
