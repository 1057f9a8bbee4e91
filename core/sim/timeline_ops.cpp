#include "sim/timeline_ops.h"

#include "error.h"
#include "ir/op_name.h"

#include <string>

namespace stagecraft {

namespace {

bool isOpEvent(const TimelineEvent& e) {
    return e.comm == CommKind::None || e.op.kind == OpKind::GradSync;
}

} // namespace

std::vector<std::size_t> eventIndexByOp(const Schedule& s, const OpIndex& index, const Timeline& t) {
    const std::size_t ops = index.opCount();
    std::vector<std::size_t> byGid(ops, 0);
    // The simulator writes op gid at event gid.
    bool simulatorLayout = t.events.size() >= ops;
    for (std::size_t gid = 0; simulatorLayout && gid < ops; ++gid) {
        const TimelineEvent& e = t.events[gid];
        const OpRef ref = index.refOf(gid);
        simulatorLayout = isOpEvent(e) && e.device == ref.device &&
                          e.op == s.order[std::size_t(ref.device)][std::size_t(ref.index)];
        byGid[gid] = gid;
    }
    for (std::size_t k = ops; simulatorLayout && k < t.events.size(); ++k)
        simulatorLayout = !isOpEvent(t.events[k]);
    if (simulatorLayout) return byGid;

    std::vector<std::size_t> next(std::size_t(std::max(s.devices, 0)), 0);
    for (std::size_t k = 0; k < t.events.size(); ++k) {
        const TimelineEvent& e = t.events[k];
        if (!isOpEvent(e)) continue;
        const std::string where = "device " + std::to_string(e.device);
        if (e.device < 0 || e.device >= s.devices)
            throw ValidationError("timeline.mismatch", "device",
                                  "timeline event on device " + std::to_string(e.device) +
                                      ", but schedule '" + s.name + "' has " + std::to_string(s.devices) +
                                      " devices");
        std::size_t& i = next[std::size_t(e.device)];
        const auto& order = s.order[std::size_t(e.device)];
        if (i >= order.size() || !(e.op == order[i]))
            throw ValidationError("timeline.mismatch", where,
                                  where + " position " + std::to_string(i) + ": the timeline has " +
                                      opName(e.op, s.splitBackward, s.sequenceSlices) + ", schedule '" +
                                      s.name + "' has " +
                                      (i < order.size() ? opName(order[i], s.splitBackward, s.sequenceSlices)
                                                        : std::string("no more ops")));
        byGid[index.globalId(OpRef{e.device, std::int32_t(i)})] = k;
        ++i;
    }
    for (int d = 0; d < s.devices; ++d)
        if (next[std::size_t(d)] != s.order[std::size_t(d)].size())
            throw ValidationError("timeline.mismatch", "device " + std::to_string(d),
                                  "device " + std::to_string(d) + " has " +
                                      std::to_string(next[std::size_t(d)]) + " ops in the timeline but " +
                                      std::to_string(s.order[std::size_t(d)].size()) + " in schedule '" +
                                      s.name + "'");
    return byGid;
}

} // namespace stagecraft
