#include "sim/metrics.h"

#include "error.h"
#include "ir/op_index.h"

#include <algorithm>

namespace stagecraft {

namespace {

/// Compute events of each device, in order, checked against the schedule.
std::vector<std::vector<const TimelineEvent*>> computeEventsByDevice(const Schedule& s, const Timeline& t) {
    std::vector<std::vector<const TimelineEvent*>> byDevice(s.devices);
    for (const TimelineEvent& e : t.events) {
        if (e.comm != CommKind::None && e.op.kind != OpKind::GradSync) continue;
        if (e.device < 0 || e.device >= s.devices)
            throw ValidationError("timeline.mismatch", "device",
                                  "timeline event on device " + std::to_string(e.device) +
                                      ", but schedule '" + s.name + "' has " + std::to_string(s.devices) +
                                      " devices");
        byDevice[e.device].push_back(&e);
    }
    for (int d = 0; d < s.devices; ++d) {
        if (byDevice[d].size() != s.order[d].size())
            throw ValidationError("timeline.mismatch", "device " + std::to_string(d),
                                  "device " + std::to_string(d) + " has " +
                                      std::to_string(byDevice[d].size()) + " ops in the timeline but " +
                                      std::to_string(s.order[d].size()) + " in schedule '" + s.name + "'");
        for (std::size_t i = 0; i < s.order[d].size(); ++i)
            if (!(byDevice[d][i]->op == s.order[d][i]))
                throw ValidationError("timeline.mismatch", "device " + std::to_string(d),
                                      "device " + std::to_string(d) + " position " + std::to_string(i) +
                                          ": the timeline has " + describeOp(byDevice[d][i]->op) +
                                          ", schedule '" + s.name + "' has " + describeOp(s.order[d][i]));
    }
    return byDevice;
}

} // namespace

TimeMetrics computeTimeMetrics(const Schedule& s, const Timeline& t, const OpCosts* costs) {
    const auto byDevice = computeEventsByDevice(s, t);
    const OpIndex index(s);
    TimeMetrics m;
    m.makespan = t.makespan();
    m.devices.resize(s.devices);
    double idleTotal = 0, longestSpan = 0, busiest = 0;
    for (int d = 0; d < s.devices; ++d) {
        DeviceMetrics& dm = m.devices[d];
        dm.bubbles.waitingOn.assign(s.devices, 0.0);
        const auto& events = byDevice[d];
        double previousEnd = 0;
        for (std::size_t i = 0; i < events.size(); ++i) {
            const TimelineEvent& e = *events[i];
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
                forEachDependency(s, index, e.op, [&](OpRef dep) {
                    if (!dep.valid()) return;
                    const double end = byDevice[dep.device][dep.index]->end;
                    if (end > latestEnd) latestEnd = end, latestDevice = dep.device;
                });
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
