#include "sim/metrics.h"

#include "error.h"
#include "ir/op_index.h"

#include <algorithm>

namespace stagecraft {

namespace {

/// The compute-lane and sync events of the timeline by global op id (device order), checked
/// against the schedule.
std::vector<const TimelineEvent*> eventsByOp(const Schedule& s, const OpIndex& index, const Timeline& t) {
    std::vector<const TimelineEvent*> byGid(index.opCount(), nullptr);
    std::vector<std::size_t> next(s.devices, 0);
    for (const TimelineEvent& e : t.events) {
        if (e.comm != CommKind::None && e.op.kind != OpKind::GradSync) continue;
        if (e.device < 0 || e.device >= s.devices)
            throw ValidationError("timeline.mismatch", "device",
                                  "timeline event on device " + std::to_string(e.device) +
                                      ", but schedule '" + s.name + "' has " + std::to_string(s.devices) +
                                      " devices");
        std::size_t& i = next[e.device];
        if (i >= s.order[e.device].size())
            throw ValidationError(
                "timeline.mismatch", "device " + std::to_string(e.device),
                "device " + std::to_string(e.device) + " has more ops in the timeline than the " +
                    std::to_string(s.order[e.device].size()) + " of schedule '" + s.name + "'");
        if (!(e.op == s.order[e.device][i]))
            throw ValidationError("timeline.mismatch", "device " + std::to_string(e.device),
                                  "device " + std::to_string(e.device) + " position " + std::to_string(i) +
                                      ": the timeline has " + describeOp(e.op) + ", schedule '" + s.name +
                                      "' has " + describeOp(s.order[e.device][i]));
        byGid[index.globalId(OpRef{e.device, std::int32_t(i)})] = &e;
        ++i;
    }
    for (int d = 0; d < s.devices; ++d)
        if (next[d] != s.order[d].size())
            throw ValidationError("timeline.mismatch", "device " + std::to_string(d),
                                  "device " + std::to_string(d) + " has " + std::to_string(next[d]) +
                                      " ops in the timeline but " + std::to_string(s.order[d].size()) +
                                      " in schedule '" + s.name + "'");
    return byGid;
}

} // namespace

TimeMetrics computeTimeMetrics(const Schedule& s, const Timeline& t, const OpCosts* costs) {
    return computeTimeMetrics(s, OpIndex(s), t, costs);
}

TimeMetrics computeTimeMetrics(const Schedule& s, const OpIndex& index, const Timeline& t,
                               const OpCosts* costs) {
    const auto byGid = eventsByOp(s, index, t);
    TimeMetrics m;
    m.makespan = t.makespan();
    m.devices.resize(s.devices);
    double idleTotal = 0, longestSpan = 0, busiest = 0;
    for (int d = 0; d < s.devices; ++d) {
        DeviceMetrics& dm = m.devices[d];
        dm.bubbles.waitingOn.assign(s.devices, 0.0);
        const std::size_t offset = index.globalId(OpRef{d, 0});
        const std::size_t count = s.order[d].size();
        double previousEnd = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const TimelineEvent& e = *byGid[offset + i];
            const bool onComputeLane = e.lane == Lane::Compute;
            if (onComputeLane) dm.busy += e.duration();
            if (i == 0) {
                dm.firstStart = e.start;
                dm.bubbles.warmup = e.start;
            } else if (onComputeLane && e.start > previousEnd) {
                // Attribute the gap to the dependency that arrived last.
                const double gap = e.start - previousEnd;
                double latestEnd = -1;
                int latestDevice = -1;
                const OpDeps& deps = index.depsOf(offset + i);
                for (const std::int32_t gid : {deps.first, deps.second}) {
                    if (gid < 0) continue;
                    const double end = byGid[std::size_t(gid)]->end;
                    if (end > latestEnd) latestEnd = end, latestDevice = index.deviceOf(std::size_t(gid));
                }
                if (latestDevice >= 0 && latestDevice != d) {
                    const double waiting = std::clamp(latestEnd - previousEnd, 0.0, gap);
                    dm.bubbles.waitingOn[latestDevice] += waiting;
                    const double comm = costs ? costs->commBetween(latestDevice, d) : 0.0;
                    dm.bubbles.communication += std::min(gap - waiting, comm);
                    dm.bubbles.other += gap - waiting - std::min(gap - waiting, comm);
                } else {
                    dm.bubbles.other += gap;
                }
            }
            if (onComputeLane) previousEnd = std::max(previousEnd, e.end);
            dm.lastEnd = std::max(dm.lastEnd, e.end);
        }
        dm.lastEnd = std::max(dm.lastEnd, previousEnd);
        dm.bubbles.cooldown = m.makespan - dm.lastEnd;
        dm.idle = m.makespan - dm.busy;
        idleTotal += dm.idle;
        longestSpan = std::max(longestSpan, dm.span());
        busiest = std::max(busiest, dm.busy);
    }
    m.bubbleRatio = m.makespan > 0 ? idleTotal / (double(s.devices) * m.makespan) : 0;
    m.spanBubbleRatio = longestSpan > 0 ? (longestSpan - busiest) / longestSpan : 0;
    return m;
}

} // namespace stagecraft
