#include "eval/trace_shape.h"

#include "error.h"
#include "generators/registry.h"
#include "size_limits.h"

#include <algorithm>
#include <map>
#include <utility>

namespace stagecraft {

namespace {

// Orders are generated to compare their placement with the run's; a run of more ops than this
// is compared by its counts alone (a generator's search would take long, and the overlay still
// checks every op when it matches).
constexpr double kMaxOpsToGenerate = 1e5;

/// The device of every (pipe, stage) the run holds an op of.
std::map<std::pair<int, int>, int> measuredPlacement(const Timeline& measured) {
    std::map<std::pair<int, int>, int> devices;
    for (const TimelineEvent& e : measured.events)
        if (e.lane == Lane::Compute && isComputeKind(e.op.kind))
            devices.emplace(std::pair{e.op.pipe, e.op.stage}, e.device);
    return devices;
}

bool samePlacement(const Schedule& order, const std::map<std::pair<int, int>, int>& measured) {
    return std::all_of(measured.begin(), measured.end(), [&](const auto& entry) {
        const auto [pipe, stage] = entry.first;
        return pipe < order.pipes && stage < order.stagesPerPipe &&
               order.slot(pipe, stage).device == entry.second;
    });
}

} // namespace

TraceShapeFit fitTraceShape(const Project& project, const Timeline& measured) {
    const TimelineShape& shape = measured.shape;
    TraceShapeFit fit;
    fit.project = project;
    fit.project.parallel.pp = std::clamp(shape.devices, 1, kMaxDevices);
    // A sliced run's micro-batch numbers are slice units: the project counts micro-batches.
    const int slices = std::clamp(shape.sequenceSlices, 1, kMaxSequenceSlices);
    fit.project.parallel.microbatches = std::clamp(shape.microbatches / slices, 1, kMaxMicrobatches);
    if (slices > 1) fit.project.parallel.slices = slices;
    const int chunks = shape.devices > 0 ? shape.stagesPerPipe / shape.devices : 1;
    if (chunks >= 2 && chunks <= kMaxChunksPerDevice) fit.project.parallel.chunks = chunks;

    const auto placement = measuredPlacement(measured);
    const ScheduleParams params = scheduleParams(fit.project);
    for (const GeneratorInfo& info : generators()) {
        const ScheduleParams own = effectiveParams(info, params);
        if (constraintViolation(info, own) || info.pipes != shape.pipes ||
            info.splitBackward != shape.splitBackward || info.stagesPerPipe(own) != shape.stagesPerPipe ||
            readsParam(info, kParamSlices) != (slices > 1))
            continue;
        const double ops = computeOpCount(info, own);
        try {
            if (ops > kMaxOpsToGenerate) {
                fit.schedules.emplace_back(info.name);
                continue;
            }
            // A run with overlapped F&B slots (DualPipeV's) is matched by a schedule that has them,
            // one without by a schedule without: ZB-V has DualPipeV's placement and split.
            const Schedule order = generateSchedule(info.name, own);
            if (samePlacement(order, placement) && order.overlapped.empty() == shape.overlapped.empty())
                fit.schedules.emplace_back(info.name);
        } catch (const Error&) {
            // A generator that refuses these parameters cannot be the run's schedule.
        }
    }
    return fit;
}

} // namespace stagecraft
