#include "sim/idle_intervals.h"

#include "ir/overlap.h"
#include "sim/idle_attribution.h"
#include "sim/timeline_ops.h"

#include <algorithm>

namespace stagecraft {

const char* idleCauseName(IdleCause cause) {
    switch (cause) {
    case IdleCause::Warmup:
        return "warmup";
    case IdleCause::Cooldown:
        return "cooldown";
    case IdleCause::WaitingOn:
        return "waiting";
    case IdleCause::Communication:
        return "communication";
    case IdleCause::Other:
        return "other";
    }
    return "other";
}

std::vector<IdleInterval> idleIntervals(const Schedule& s, const OpIndex& index, const Timeline& t,
                                        const OpCosts* costs) {
    const std::vector<std::size_t> eventOf = eventIndexByOp(s, index, t);
    const double makespan = t.makespan();
    std::vector<IdleInterval> out;
    const auto add = [&out](IdleInterval interval) {
        if (interval.end > interval.start) out.push_back(interval);
    };
    // The loop mirrors measureDevices in metrics.cpp: same gaps, same split.
    const SlotLookup slots(s, index);
    for (int d = 0; d < s.devices; ++d) {
        const std::size_t count = s.order[std::size_t(d)].size();
        const std::size_t offset = count ? index.globalId(OpRef{d, 0}) : 0;
        double previousEnd = 0, lastEnd = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t k = eventOf[offset + i];
            const TimelineEvent& e = t.events[k];
            const bool onComputeLane = e.lane == Lane::Compute;
            if (i == 0) {
                add({d, 0.0, e.start, IdleCause::Warmup, -1, -1, std::int64_t(k)});
            } else if (onComputeLane && e.start > previousEnd) {
                const double gap = e.start - previousEnd;
                double latestEnd = -1;
                int latestDevice = -1;
                std::int64_t latest = -1;
                slots.forEachProducer(index, offset + i, [&](std::size_t gid) {
                    const TimelineEvent& producer = t.events[eventOf[gid]];
                    if (producer.end > latestEnd)
                        latestEnd = producer.end, latestDevice = producer.device,
                        latest = std::int64_t(eventOf[gid]);
                });
                const GapSplit split =
                    splitIdleGap(previousEnd, gap, latestEnd, latestDevice, d, e.op.mb, costs);
                const std::int64_t consumer = std::int64_t(k);
                double at = previousEnd;
                if (split.waitingOnDevice >= 0) {
                    add({d, at, at + split.waiting, IdleCause::WaitingOn, split.waitingOnDevice, latest,
                         consumer});
                    at += split.waiting;
                    add({d, at, at + split.communication, IdleCause::Communication, split.waitingOnDevice,
                         latest, consumer});
                    at += split.communication;
                }
                add({d, at, e.start, IdleCause::Other, -1, -1, consumer});
            }
            if (onComputeLane) previousEnd = std::max(previousEnd, e.end);
            lastEnd = std::max(lastEnd, e.end);
        }
        add({d, std::max(lastEnd, previousEnd), makespan, IdleCause::Cooldown, -1, -1, -1});
    }
    return out;
}

} // namespace stagecraft
