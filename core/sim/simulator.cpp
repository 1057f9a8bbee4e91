#include "sim/simulator.h"

#include "error.h"

namespace stagecraft {

namespace {

void addTransfers(const Schedule& s, const OpIndex& index, const ListScheduleResult& run,
                  const OpCosts& costs, Timeline& timeline) {
    // A transfer leaves when its producer ends and arrives the link's comm time later; one event
    // per cross-device data dependency (F -> next stage's F, B -> previous stage's B). Counted
    // first so the event vector grows once.
    auto remote = [&](std::int32_t dep, int d) {
        return dep >= 0 &&
               (std::size_t(dep) < run.deviceOffset[d] || std::size_t(dep) >= run.deviceOffset[d + 1]);
    };
    std::size_t transfers = 0, counted = 0;
    for (int d = 0; d < s.devices; ++d)
        for (std::size_t i = 0; i < s.order[d].size(); ++i, ++counted) {
            const OpDeps& deps = index.depsOf(counted);
            transfers += std::size_t(remote(deps.first, d)) + std::size_t(remote(deps.second, d));
        }
    timeline.events.reserve(timeline.events.size() + transfers);
    std::size_t gid = 0;
    for (int d = 0; d < s.devices; ++d)
        for (std::size_t i = 0; i < s.order[d].size(); ++i, ++gid) {
            const OpDeps& deps = index.depsOf(gid);
            for (const std::int32_t dep : {deps.first, deps.second}) {
                if (!remote(dep, d)) continue;
                const OpRef from = index.refOf(std::size_t(dep));
                const Op& producer = s.order[from.device][from.index];
                TimelineEvent e;
                e.op = producer;
                e.device = from.device;
                e.peer = d;
                e.lane = Lane::Comm;
                e.comm = producer.kind == OpKind::F ? CommKind::Activation : CommKind::Gradient;
                e.start = run.times[std::size_t(dep)].end;
                e.end = e.start + costs.commBetween(from.device, d);
                timeline.events.push_back(e);
            }
        }
}

} // namespace

Timeline simulate(const Schedule& s, const OpCosts& costs) {
    return simulate(s, OpIndex(s), costs);
}

Timeline simulate(const Schedule& s, const OpIndex& index, const OpCosts& costs) {
    const ListScheduleResult run = listSchedule(s, index, costs);
    if (!run.complete()) {
        std::string message = "schedule '" + s.name + "' deadlocks:";
        for (const auto& b : run.blocked) message += " " + b.reason + ";";
        throw ValidationError("schedule.deadlock", s.name, message);
    }
    Timeline timeline;
    timeline.shape = shapeOf(s);
    const bool transfers = costs.comm > 0 || costs.commInterNode > 0;
    // Every op but those of the first stage has one remote producer at most per direction; the
    // bound 2 * ops keeps the vector from growing twice.
    timeline.events.reserve(transfers ? 2 * s.opCount() : s.opCount());
    for (int d = 0; d < s.devices; ++d)
        for (int i = 0; i < int(s.order[d].size()); ++i) {
            const Op& op = s.order[d][i];
            TimelineEvent e;
            e.op = op;
            e.device = d;
            e.lane = op.kind == OpKind::GradSync ? Lane::Comm : Lane::Compute;
            e.comm = op.kind == OpKind::GradSync ? CommKind::Collective : CommKind::None;
            e.start = run.time(d, i).start;
            e.end = run.time(d, i).end;
            timeline.events.push_back(e);
        }
    if (transfers) addTransfers(s, index, run, costs, timeline);
    return timeline;
}

} // namespace stagecraft
