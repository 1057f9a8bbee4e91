#include "sim/calibration.h"

#include "error.h"

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

} // namespace

CostFit fitCosts(const Timeline& measured, const CostsConfig& base, bool sendsOccupyDevice) {
    const TimelineShape& s = measured.shape;
    const int stages = s.stagesPerPipe;
    const int devices = s.devices;
    if (stages <= 0 || devices <= 0)
        throw ValidationError("calibrate.trace", "trace", "the measured timeline has no stages to fit");
    // Durations per (kind, chunk stage), over pipes.
    std::vector<std::array<std::vector<double>, 3>> durations(static_cast<std::size_t>(stages));
    std::map<std::tuple<int, int, int, int>, const TimelineEvent*> byOp; // kind, pipe, stage, mb
    CostFit fit;
    std::map<std::tuple<int, int, int, int, int>, double> sendTime; // + device
    if (sendsOccupyDevice)
        for (const TimelineEvent& e : measured.events)
            if (e.comm == CommKind::Activation || e.comm == CommKind::Gradient)
                sendTime[{int(e.op.kind), e.op.pipe, e.op.stage, e.op.mb, e.device}] += e.duration();
    for (const TimelineEvent& e : measured.events) {
        if (e.lane != Lane::Compute || !isComputeKind(e.op.kind) || e.op.stage < 0 || e.op.stage >= stages)
            continue;
        double duration = e.duration();
        if (const auto it = sendTime.find({int(e.op.kind), e.op.pipe, e.op.stage, e.op.mb, e.device});
            it != sendTime.end())
            duration += it->second;
        durations[std::size_t(e.op.stage)][std::size_t(e.op.kind)].push_back(duration);
        byOp[{int(e.op.kind), e.op.pipe, e.op.stage, e.op.mb}] = &e;
        ++fit.samples;
    }
    for (int stage = 0; stage < stages; ++stage)
        if (durations[std::size_t(stage)][std::size_t(OpKind::F)].empty() ||
            durations[std::size_t(stage)][std::size_t(OpKind::B)].empty())
            throw ValidationError("calibrate.trace", "trace",
                                  "the measured timeline has no F or no B of stage " + std::to_string(stage) +
                                      "; calibration needs both for every stage");

    fit.costs = base;
    fit.costs.mode = CostMode::Manual;
    fit.costs.stages.clear();
    fit.costs.chunkStages.clear();
    for (int stage = 0; stage < stages; ++stage) {
        const auto& d = durations[std::size_t(stage)];
        fit.costs.chunkStages.push_back(
            StageCostOverride{stage, median(d[std::size_t(OpKind::F)]), median(d[std::size_t(OpKind::B)]),
                              s.splitBackward ? median(d[std::size_t(OpKind::W)]) : 0.0});
    }
    double sumF = 0, sumB = 0, sumW = 0;
    for (int full = 0; full < devices; ++full) {
        StageCostOverride o;
        o.stage = full;
        for (int stage = 0; stage < stages; ++stage) {
            if (int((long long)stage * devices / stages) != full) continue;
            const auto& d = durations[std::size_t(stage)];
            o.f += median(d[std::size_t(OpKind::F)]);
            o.b += median(d[std::size_t(OpKind::B)]);
            o.w += s.splitBackward ? median(d[std::size_t(OpKind::W)]) : 0.0;
        }
        sumF += o.f;
        sumB += o.b;
        sumW += o.w;
        fit.costs.stages.push_back(o);
    }
    // The plain fields hold the mean, for captions and for stages a later edit adds.
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
        int from = -1;
        if (kind == int(OpKind::F))
            from = stage - 1;
        else if (kind == int(OpKind::B))
            from = stage + 1;
        if (from < 0 || from >= stages) continue;
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
