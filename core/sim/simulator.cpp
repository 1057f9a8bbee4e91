#include "sim/simulator.h"

#include "error.h"

namespace stagecraft {

namespace {

void addTransfers(const Schedule& s, const OpIndex& index, const ListScheduleResult& run,
                  const OpCosts& costs, Timeline& timeline) {
    // A transfer leaves when its producer ends and arrives the link's comm time later; one event per
    // cross-device data dependency (F -> next stage's F, B -> previous stage's B).
    for (int d = 0; d < s.devices; ++d)
        for (int i = 0; i < int(s.order[d].size()); ++i) {
            const Op& op = s.order[d][i];
            forEachDependency(s, index, op, [&](OpRef dep) {
                if (!dep.valid() || dep.device == d) return;
                const Op& producer = s.order[dep.device][dep.index];
                if (producer.kind == OpKind::W) return;
                if (op.kind == OpKind::B && producer.kind == OpKind::F) return; // own stage, never remote
                TimelineEvent e;
                e.op = producer;
                e.device = dep.device;
                e.peer = d;
                e.lane = Lane::Comm;
                e.comm = producer.kind == OpKind::F ? CommKind::Activation : CommKind::Gradient;
                e.start = run.time(dep.device, dep.index).end;
                e.end = e.start + costs.commBetween(dep.device, d);
                timeline.events.push_back(e);
            });
        }
}

} // namespace

Timeline simulate(const Schedule& s, const OpCosts& costs) {
    const OpIndex index(s);
    const ListScheduleResult run = listSchedule(s, index, costs);
    if (!run.complete()) {
        std::string message = "schedule '" + s.name + "' deadlocks:";
        for (const auto& b : run.blocked) message += " " + b.reason + ";";
        throw ValidationError("schedule.deadlock", s.name, message);
    }
    Timeline timeline;
    timeline.shape = shapeOf(s);
    timeline.events.reserve(s.opCount());
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
    if (costs.comm > 0 || costs.commInterNode > 0) addTransfers(s, index, run, costs, timeline);
    return timeline;
}

} // namespace stagecraft
