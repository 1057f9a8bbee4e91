#include "sim/critical_path.h"

#include "ir/overlap.h"
#include "sim/timeline_ops.h"

#include <algorithm>
#include <cmath>

namespace stagecraft {

namespace {

/// Times are sums of costs: allow for rounding relative to the makespan.
double toleranceFor(double makespan) {
    return 1e-9 * std::max(1.0, std::abs(makespan));
}

} // namespace

std::vector<std::size_t> criticalPath(const Schedule& s, const OpIndex& index, const Timeline& t,
                                      const OpCosts* costs) {
    const std::vector<std::size_t> eventOf = eventIndexByOp(s, index, t);
    const std::size_t ops = index.opCount();
    // The last compute event to end (first such on ties).
    std::int64_t current = -1;
    for (std::size_t gid = 0; gid < ops; ++gid) {
        const TimelineEvent& e = t.events[eventOf[gid]];
        if (e.lane != Lane::Compute) continue;
        if (current < 0 || e.end > t.events[eventOf[std::size_t(current)]].end) current = std::int64_t(gid);
    }
    std::vector<std::size_t> path;
    if (current < 0) return path;
    const double eps = toleranceFor(t.makespan());
    // Slots (ir/overlap.h) run as one unit: the path enters one at its head, released by an input
    // of any of its ops, walks through its ops, and leaves from its last op.
    const SlotLookup slots(s, index);
    // Each step moves to an op that ends no later than this one starts, and durations are
    // non-negative, so ids never repeat except through zero-length ops; cap the walk anyway.
    for (std::size_t steps = 0; current >= 0 && steps <= ops; ++steps) {
        const std::size_t gid = std::size_t(current);
        path.push_back(eventOf[gid]);
        const TimelineEvent& e = t.events[eventOf[gid]];
        std::int64_t best = -1;
        double bestArrival = -1;
        bool bestIsDependency = false;
        slots.forEachProducer(index, gid, [&](std::size_t dep) {
            const TimelineEvent& producer = t.events[eventOf[dep]];
            const double arrival =
                producer.end + (costs ? costs->commBetween(index.deviceOf(dep), e.device, e.op.mb) : 0.0);
            if (arrival > bestArrival + eps)
                best = std::int64_t(dep), bestArrival = arrival, bestIsDependency = true;
        });
        const OpRef ref = index.refOf(gid);
        if (ref.index > 0) {
            const std::size_t previous = gid - 1;
            const double arrival = t.events[eventOf[previous]].end;
            // A dependency arriving at the same time keeps its place.
            if (arrival > bestArrival + eps || (!bestIsDependency && best < 0))
                best = std::int64_t(previous), bestArrival = arrival, bestIsDependency = false;
        }
        // An op whose predecessors all ended well before it started was not released by them
        // (it starts the iteration, or a measured timeline has a gap): the path starts here only
        // when it starts at time zero or nothing precedes it.
        if (best >= 0 && e.start <= eps && bestArrival <= eps) best = -1;
        current = best;
    }
    std::reverse(path.begin(), path.end());
    return path;
}

} // namespace stagecraft
