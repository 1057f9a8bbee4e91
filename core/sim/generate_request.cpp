#include "sim/generate_request.h"

#include "error.h"
#include "number_text.h"
#include "project/runtime_costs.h"
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

} // namespace

GenerateRequest generateRequest(const Project& project, const GeneratorInfo& info) {
    GenerateRequest request;
    request.params = effectiveParams(info, scheduleParams(project));
    if (!info.usesCosts) return request;
    request.postValidation = project.costs.optimizerSync == OptimizerSync::PostValidation;

    const Schedule probe = probeSchedule(info, request.params);
    const CostSetup setup = buildCostSetup(project, probe);
    const int stages = probe.stagesPerPipe;
    if (project.runtimeFit) {
        // The runtime fit times the order, so the order is planned with what it times.
        request.stageCosts = plannedStageCosts(project.runtimeFit->costs, stages, kFittedInputShare);
        request.comm = project.runtimeFit->costs.transfer.latency;
    } else {
        request.stageCosts.resize(std::size_t(stages));
        for (int s = 0; s < stages; ++s) {
            const auto& d = setup.costs.duration;
            request.stageCosts[std::size_t(s)] = {d[int(OpKind::F)][std::size_t(s)],
                                                  d[int(OpKind::B)][std::size_t(s)],
                                                  d[int(OpKind::W)][std::size_t(s)]};
        }
        request.comm = setup.costs.comm;
    }
    // The largest share any stage keeps for W: planning with it never under-counts a device.
    double kept = 0;
    for (int s = 0; s < stages; ++s) {
        const StageMemory& m = setup.memory.stages[std::size_t(s)];
        if (m.activationBytes > 0) kept = std::max(kept, m.keptForWBytes / m.activationBytes);
    }
    if (!setup.unitless) request.keptForW = std::clamp(kept, 0.0, 1.0);

    // A limit in activations is the planning limit as given; it takes precedence over the bytes.
    if (project.memory.limitMicrobatches > 0) {
        request.memoryLimit = project.memory.limitMicrobatches;
        return request;
    }
    const double limit = setup.memory.limitBytes;
    if (setup.unitless || limit <= 0) return request;
    // Per device: its static memory, and M_a as the largest full-stage activation among the
    // stages it holds (stages differ: one layer fewer on the first and last, the LM head's logits).
    std::vector<double> staticBytes(std::size_t(probe.devices), 0.0),
        unitBytes(std::size_t(probe.devices), 0.0);
    for (int pipe = 0; pipe < probe.pipes; ++pipe)
        for (int s = 0; s < stages; ++s) {
            const StageMemory& m = setup.memory.stages[std::size_t(pipe * stages + s)];
            const std::size_t d = std::size_t(probe.slot(pipe, s).device);
            staticBytes[d] += m.staticBytes;
            unitBytes[d] = std::max(unitBytes[d], m.activationBytes / probe.stageFraction());
        }
    const double worstStatic = *std::max_element(staticBytes.begin(), staticBytes.end());
    if (worstStatic >= limit)
        throw ValidationError(
            "generator.memory", "memory.limit_gib",
            "memory.limit_gib = " + gibText(limit) + ": weights, gradients and optimizer state " +
                "alone take " + gibText(worstStatic) + " on one device, so " + std::string(info.name) +
                " has no room for activations; raise the limit or shard with memory.zero_stage");
    // The limit in M_a that holds on every device: the tightest over the devices.
    double activations = 0;
    bool first = true;
    for (std::size_t d = 0; d < staticBytes.size(); ++d) {
        if (unitBytes[d] <= 0) continue;
        const double room = (limit - staticBytes[d]) / unitBytes[d];
        activations = first ? room : std::min(activations, room);
        first = false;
    }
    request.memoryLimit = activations;
    return request;
}

} // namespace stagecraft
