#include "sim/metrics.h"

#include "error.h"
#include "ir/op_index.h"
#include "ir/op_name.h"
#include "ir/overlap.h"
#include "sim/idle_attribution.h"

#include <algorithm>
#include <cstring>

namespace stagecraft {

namespace {

constexpr std::size_t kPrefetchOps = 8;

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
            throw ValidationError(
                "timeline.mismatch", "device " + std::to_string(e.device),
                "device " + std::to_string(e.device) + " position " + std::to_string(i) +
                    ": the timeline has " + opName(e.op, s.splitBackward, s.sequenceSlices) + ", schedule '" +
                    s.name + "' has " + opName(s.order[e.device][i], s.splitBackward, s.sequenceSlices));
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

/// Busy time, first start, last end and idle causes of every device, reading op `gid`'s event
/// through `eventAt(gid)`. With `kCheckLayout` it also checks that every event it reads is the
/// schedule's op on its device and returns false at the first that is not.
template <bool kCheckLayout, typename EventAt>
bool measureDevices(const Schedule& s, const OpIndex& index, EventAt eventAt, const OpCosts* costs,
                    TimeMetrics& m) {
    m.devices.resize(s.devices);
    // Slots (ir/overlap.h) are released by the inputs of all their ops, which are ready when the
    // producing slot ends.
    const SlotLookup slots(s, index);
    for (int d = 0; d < s.devices; ++d) {
        DeviceMetrics& dm = m.devices[d];
        dm.bubbles.waitingOn.assign(s.devices, 0.0);
        const std::size_t offset = index.globalId(OpRef{d, 0});
        const std::size_t count = s.order[d].size();
        const Op* ops = s.order[d].data();
        double previousEnd = 0, lastEnd = 0, busy = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const TimelineEvent& e = eventAt(offset + i);
            if constexpr (kCheckLayout) {
                // Producers sit on other devices' stretches of the timeline, far from this
                // one: fetch those of a few ops ahead.
                if (i + kPrefetchOps < count) {
                    const OpDeps ahead = index.depsOf(offset + i + kPrefetchOps);
                    if (ahead.first >= 0) __builtin_prefetch(&eventAt(std::size_t(ahead.first)));
                    if (ahead.second >= 0) __builtin_prefetch(&eventAt(std::size_t(ahead.second)));
                }
                const bool listed = e.comm == CommKind::None || e.op.kind == OpKind::GradSync;
                // Op is 12 bytes of integers without padding: equal fields, equal bytes.
                if (!listed || e.device != d || std::memcmp(&e.op, &ops[i], sizeof(Op)) != 0) return false;
            }
            const bool onComputeLane = e.lane == Lane::Compute;
            if (onComputeLane) busy += e.duration();
            if (i == 0) {
                dm.firstStart = e.start;
                dm.bubbles.warmup = e.start;
            } else if (onComputeLane && e.start > previousEnd) {
                // Attribute the gap to the dependency that arrived last.
                const double gap = e.start - previousEnd;
                double latestEnd = -1;
                int latestDevice = -1;
                // The producer's event is on its device (eventsByOp or the layout check ensures
                // it), so its device field is index.deviceOf(gid) without the lookup.
                slots.forEachProducer(index, offset + i, [&](std::size_t gid) {
                    const TimelineEvent& producer = eventAt(gid);
                    if (producer.end > latestEnd) latestEnd = producer.end, latestDevice = producer.device;
                });
                if constexpr (kCheckLayout) {
                    // Not yet checked: a stray device would index out of range. (The layout
                    // check rejects such a timeline before its numbers are used.)
                    if (latestDevice >= s.devices) return false;
                }
                const GapSplit split =
                    splitIdleGap(previousEnd, gap, latestEnd, latestDevice, d, e.op.mb, costs);
                if (split.waitingOnDevice >= 0) dm.bubbles.waitingOn[split.waitingOnDevice] += split.waiting;
                dm.bubbles.communication += split.communication;
                dm.bubbles.other += split.other;
            }
            if (onComputeLane) previousEnd = std::max(previousEnd, e.end);
            lastEnd = std::max(lastEnd, e.end);
        }
        dm.busy = busy;
        dm.lastEnd = std::max(lastEnd, previousEnd);
    }
    return true;
}

/// Cooldown, idle and the ratios, once the makespan is known.
void finish(const Schedule& s, TimeMetrics& m, double makespan) {
    m.makespan = makespan;
    double idleTotal = 0, longestSpan = 0, busiest = 0;
    for (DeviceMetrics& dm : m.devices) {
        dm.bubbles.cooldown = m.makespan - dm.lastEnd;
        dm.idle = m.makespan - dm.busy;
        idleTotal += dm.idle;
        longestSpan = std::max(longestSpan, dm.span());
        busiest = std::max(busiest, dm.busy);
    }
    m.bubbleRatio = m.makespan > 0 ? idleTotal / (double(s.devices) * m.makespan) : 0;
    m.spanBubbleRatio = longestSpan > 0 ? (longestSpan - busiest) / longestSpan : 0;
}

/// The simulator's layout: op `gid`'s event at position `gid`, every later event a transfer.
/// Checked while measuring; returns false (and the caller takes the general path) otherwise.
bool measureSimulatorLayout(const Schedule& s, const OpIndex& index, const Timeline& t, const OpCosts* costs,
                            TimeMetrics& m) {
    const std::size_t ops = index.opCount();
    if (t.events.size() < ops || std::size_t(std::max(s.devices, 0)) != s.order.size()) return false;
    const TimelineEvent* events = t.events.data();
    double makespan = 0.0;
    for (std::size_t k = ops; k < t.events.size(); ++k) {
        const TimelineEvent& e = events[k];
        if (e.comm == CommKind::None || e.op.kind == OpKind::GradSync) return false;
        makespan = std::max(makespan, e.end);
    }
    if (!measureDevices<true>(
            s, index, [events](std::size_t gid) -> const TimelineEvent& { return events[gid]; }, costs, m))
        return false;
    // Every compute and sync event's end is in some device's lastEnd.
    for (const DeviceMetrics& dm : m.devices) makespan = std::max(makespan, dm.lastEnd);
    finish(s, m, makespan);
    return true;
}

} // namespace

TimeMetrics computeTimeMetrics(const Schedule& s, const Timeline& t, const OpCosts* costs) {
    return computeTimeMetrics(s, OpIndex(s), t, costs);
}

TimeMetrics computeTimeMetrics(const Schedule& s, const OpIndex& index, const Timeline& t,
                               const OpCosts* costs) {
    {
        TimeMetrics m;
        if (measureSimulatorLayout(s, index, t, costs, m)) return m;
    }
    // Any other layout (a measured or reordered timeline): find each op's event, checking the
    // timeline against the schedule on the way.
    const auto byGid = eventsByOp(s, index, t);
    TimeMetrics m;
    measureDevices<false>(
        s, index, [&byGid](std::size_t gid) -> const TimelineEvent& { return *byGid[gid]; }, costs, m);
    finish(s, m, t.makespan());
    return m;
}

} // namespace stagecraft
