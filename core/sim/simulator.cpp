#include "sim/simulator.h"

#include "error.h"
#include "ir/large_array.h"

#include <algorithm>

namespace stagecraft {

namespace {

/// One event per cross-device data dependency (F -> next stage's F, B -> previous stage's B),
/// appended after the compute events: a transfer leaves when its producer ends and arrives the
/// link's comm time later. The producer's op, device and end are read from its compute event.
void addTransfers(const Schedule& s, const OpIndex& index, const OpCosts& costs, Timeline& timeline) {
    std::vector<TimelineEvent>& events = timeline.events;
    std::size_t gid = 0;
    for (int d = 0; d < s.devices; ++d) {
        const std::size_t begin = gid, count = s.order[d].size();
        for (std::size_t i = 0; i < count; ++i, ++gid) {
            const OpDeps deps = index.depsOf(gid);
            for (const std::int32_t dep : {deps.first, deps.second}) {
                if (dep < 0 || std::size_t(dep) - begin < count) continue;
                const Op op = events[std::size_t(dep)].op;
                const std::int32_t from = events[std::size_t(dep)].device;
                const double leaves = events[std::size_t(dep)].end;
                // Written in place: an event assembled on the stack and then copied costs a
                // store-forwarding stall per event.
                TimelineEvent& e = events.emplace_back();
                e.op = op;
                e.device = from;
                e.peer = d;
                e.lane = Lane::Comm;
                e.comm = op.kind == OpKind::F ? CommKind::Activation : CommKind::Gradient;
                e.start = leaves;
                e.end = leaves + costs.commBetween(from, d, op.mb);
            }
        }
    }
}

} // namespace

Timeline simulate(const Schedule& s, const OpCosts& costs) {
    return simulate(s, OpIndex(s), costs);
}

Timeline simulate(const Schedule& s, const OpIndex& index, const OpCosts& costs) {
    Timeline timeline;
    timeline.shape = shapeOf(s);
    const bool transfers = costs.comm > 0 || costs.commInterNode > 0;
    const std::size_t ops = s.opCount();
    // Exactly one allocation: the compute events, then one transfer per cross-device dependency.
    reserveLarge(timeline.events, ops + (transfers ? index.crossDeviceDependencies() : 0));
    // The compute events in device order, not yet run (end < 0); the list scheduler then writes
    // every start and end in place.
    for (std::size_t d = 0; d < s.order.size(); ++d)
        for (const Op& op : s.order[d]) {
            TimelineEvent& e = timeline.events.emplace_back();
            e.op = op;
            e.device = std::int32_t(d);
            e.lane = op.kind == OpKind::GradSync ? Lane::Comm : Lane::Compute;
            e.comm = op.kind == OpKind::GradSync ? CommKind::Collective : CommKind::None;
            e.start = -1.0;
            e.end = -1.0;
        }
    const ListScheduleResult run =
        listScheduleInto(s, index, costs, std::span<TimelineEvent>(timeline.events.data(), ops));
    if (!run.complete()) {
        std::string message = "schedule '" + s.name + "' deadlocks: ";
        for (std::size_t i = 0; i < run.blocked.size(); ++i) {
            if (i > 0) message += "; ";
            message += run.blocked[i].reason;
        }
        throw ValidationError("schedule.deadlock", s.name, message);
    }
    // Transfers leave when a slot ends (all its outputs are ready then); its ops are divided
    // into parts only after.
    if (transfers) addTransfers(s, index, costs, timeline);
    if (!s.overlapped.empty() || !s.wholeBackward.empty())
        splitSlots(s, findSlots(s, index), costs, std::span<TimelineEvent>(timeline.events.data(), ops));
    if (s.order.size() > std::size_t(std::max(s.devices, 0))) {
        // Orders beyond `devices` (a malformed schedule) ran, but their ops are not events.
        std::size_t shown = 0;
        for (int d = 0; d < s.devices; ++d) shown += s.order[d].size();
        timeline.events.erase(timeline.events.begin() + std::ptrdiff_t(shown),
                              timeline.events.begin() + std::ptrdiff_t(ops));
    }
    return timeline;
}

} // namespace stagecraft
