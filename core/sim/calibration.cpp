#include "sim/calibration.h"

#include "error.h"
#include "ir/stage_flow.h"
#include "project/field_text.h"
#include "project/layer_split.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

namespace stagecraft {

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void checkOptions(const CalibrationOptions& options) {
    if (!(options.inputShare > 0 && options.inputShare < 1))
        throw ValidationError(
            "calibrate.options", "--input-share",
            "input share = " + detail::formatNumber(options.inputShare) +
                ": B's share of a backward timed whole must lie between 0 and 1 (exclusive), "
                "so that both B and W take time");
}

/// The layers each measured stage held: the split of the project's model into the run's stages.
std::vector<int> measuredStageLayers(const Project& project, int stages) {
    std::vector<int> split = splitLayers(project.model.layers, stages);
    if (split.empty())
        throw ValidationError(
            "project.layers", "model.layers",
            layerSplitMessage(project.model.layers, stages, "the measured run") +
                "; calibration gives each measured stage's costs to the layers it held: set "
                "model.layers to the layers of the model the trace ran");
    return split;
}

} // namespace

CostFit fitCosts(const Timeline& measured, const Project& project, const CalibrationOptions& options) {
    checkOptions(options);
    const TimelineShape& s = measured.shape;
    const int stages = s.stagesPerPipe;
    const int devices = s.devices;
    if (stages <= 0 || devices <= 0)
        throw ValidationError("calibrate.trace", "trace", "the measured timeline has no stages to fit");
    const std::vector<int> layers = measuredStageLayers(project, stages);
    // Durations per (kind, chunk stage), over pipes.
    std::vector<std::array<std::vector<double>, 3>> durations(static_cast<std::size_t>(stages));
    std::map<std::tuple<int, int, int, int>, const TimelineEvent*> byOp; // kind, pipe, stage, mb
    // A sequence-sliced run times slices: a micro-batch's op costs the sum over its slices, and
    // what the slices cost relative to one another is fitted apart (costs.slice_costs).
    const int slices = std::max(1, s.sequenceSlices);
    std::map<std::tuple<int, int, int, int>, double> perMicrobatch; // kind, pipe, stage, micro-batch
    std::vector<double> perSlice(std::size_t(slices), 0.0);
    CostFit fit;
    fit.stages = stages;
    fit.splitMeasured = s.splitBackward;
    std::map<std::tuple<int, int, int, int, int>, double> sendTime; // + device
    if (options.sendsOccupyDevice)
        for (const TimelineEvent& e : measured.events)
            if (e.isTransfer())
                sendTime[{int(e.op.kind), e.op.pipe, e.op.stage, e.op.mb, e.device}] += e.duration();
    for (const TimelineEvent& e : measured.events) {
        if (e.lane != Lane::Compute || !isComputeKind(e.op.kind) || e.op.stage < 0 || e.op.stage >= stages)
            continue;
        // A recompute re-runs its forward, which the cost model prices as F: it is not fitted.
        if (e.op.kind == OpKind::R) continue;
        double duration = e.duration();
        if (const auto it = sendTime.find({int(e.op.kind), e.op.pipe, e.op.stage, e.op.mb, e.device});
            it != sendTime.end())
            duration += it->second;
        perMicrobatch[{int(e.op.kind), e.op.pipe, e.op.stage, e.op.mb / slices}] += duration;
        if (e.op.mb >= 0) perSlice[std::size_t(e.op.mb % slices)] += duration;
        byOp[{int(e.op.kind), e.op.pipe, e.op.stage, e.op.mb}] = &e;
        ++fit.samples;
    }
    for (const auto& [key, duration] : perMicrobatch)
        durations[std::size_t(std::get<2>(key))][std::size_t(std::get<0>(key))].push_back(duration);
    for (int stage = 0; stage < stages; ++stage) {
        const auto& d = durations[std::size_t(stage)];
        if (d[std::size_t(OpKind::F)].empty() || d[std::size_t(OpKind::B)].empty())
            throw ValidationError("calibrate.trace", "trace",
                                  "the measured timeline has no F or no B of stage " + std::to_string(stage) +
                                      "; calibration needs both for every stage");
        if (!(median(d[std::size_t(OpKind::F)]) > 0))
            throw ValidationError("calibrate.trace", "trace",
                                  "the forwards of stage " + std::to_string(stage) +
                                      " took 0 µs (median): calibration needs timed ops, not a step grid");
    }

    fit.costs = project.costs;
    fit.costs.mode = CostMode::Manual;
    fit.costs.stages.clear();
    fit.costs.layers.clear();
    int first = 0;
    for (int stage = 0; stage < stages; ++stage) {
        const auto& d = durations[std::size_t(stage)];
        const int count = layers[std::size_t(stage)];
        fit.costs.layers.push_back(LayerRangeCost{first, first + count - 1, median(d[std::size_t(OpKind::F)]),
                                                  median(d[std::size_t(OpKind::B)]),
                                                  s.splitBackward ? median(d[std::size_t(OpKind::W)]) : 0.0});
        first += count;
    }
    if (!s.splitBackward) {
        splitWholeBackward(fit.costs.layers, options.inputShare);
        fit.rule = wholeBackwardRule(options.inputShare);
    }
    fit.costs.sliceCosts.clear();
    if (slices > 1) {
        double mean = 0;
        for (const double total : perSlice) mean += total / slices;
        if (mean > 0) {
            for (const double total : perSlice) fit.costs.sliceCosts.push_back(total / mean);
            std::string spread;
            for (const double v : fit.costs.sliceCosts)
                spread += (spread.empty() ? "" : "/") + detail::formatNumber(std::round(v * 1000) / 1000);
            fit.sliceRule = "the " + std::to_string(slices) + " sequence slices measured " + spread +
                            " of the mean slice (costs.slice_costs, for k = " + std::to_string(slices) + ")";
        }
    }
    // The plain fields hold the mean per full stage of the measured pipeline, for captions.
    double sumF = 0, sumB = 0, sumW = 0;
    for (const LayerRangeCost& r : fit.costs.layers) {
        sumF += r.f;
        sumB += r.b;
        sumW += r.w;
    }
    fit.costs.f = sumF / devices;
    fit.costs.b = sumB / devices;
    fit.costs.w = sumW / devices;

    // Transfers: delays of cross-device dependencies that were waited for.
    std::vector<std::vector<const TimelineEvent*>> perDevice(static_cast<std::size_t>(devices));
    for (const auto& [key, e] : byOp)
        if (e->device >= 0 && e->device < devices) perDevice[std::size_t(e->device)].push_back(e);
    for (auto& list : perDevice)
        std::sort(list.begin(), list.end(),
                  [](const TimelineEvent* a, const TimelineEvent* b) { return a->start < b->start; });
    // End of the op before `e` on its device (ops of a device do not overlap).
    auto previousEnd = [&](const TimelineEvent& e) {
        const auto& list = perDevice[std::size_t(e.device)];
        const auto it = std::lower_bound(list.begin(), list.end(), e.start,
                                         [](const TimelineEvent* x, double t) { return x->start < t; });
        return it == list.begin() ? -INFINITY : (*(it - 1))->end;
    };
    std::vector<double> delays;
    for (const auto& [key, consumer] : byOp) {
        const auto [kind, pipe, stage, mb] = key;
        const int from = producerStage(OpKind(kind), stage, stages);
        if (from < 0) continue;
        const auto it = byOp.find({kind, pipe, from, mb});
        if (it == byOp.end()) continue;
        const TimelineEvent& producer = *it->second;
        if (producer.device == consumer->device) continue;
        // Only where the consumer waited (its device was free before it started): then, under the
        // list scheduler's rule start = max(device free, producer end + comm), the gap is comm.
        if (consumer->start <= previousEnd(*consumer) + 1e-9) continue;
        // A send that occupied the producer's device is in the producer's fitted duration already.
        double producerEnd = producer.end;
        if (const auto sent = sendTime.find({kind, pipe, from, mb, producer.device}); sent != sendTime.end())
            producerEnd += sent->second;
        delays.push_back(std::max(0.0, consumer->start - producerEnd));
    }
    fit.commSamples = delays.size();
    fit.costs.comm = median(delays);
    return fit;
}

} // namespace stagecraft
