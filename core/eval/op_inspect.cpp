#include "eval/op_inspect.h"

#include <algorithm>
#include <stdexcept>

namespace stagecraft {

double memoryBefore(const MemoryReport& memory, int device, double t) {
    if (device < 0 || std::size_t(device) >= memory.devices.size()) return 0;
    const DeviceMemory& m = memory.devices[std::size_t(device)];
    const auto at =
        std::lower_bound(m.curve.begin(), m.curve.end(), t,
                         [](const std::pair<double, double>& p, double time) { return p.first < time; });
    return at == m.curve.begin() ? m.staticBytes : std::prev(at)->second;
}

double memoryAfterOp(const Prediction& p, const TimelineEvent& e) {
    const Schedule& s = p.schedule;
    double bytes = memoryBefore(p.report.memory, e.device, e.end);
    const std::size_t slot = std::size_t(e.op.pipe) * std::size_t(s.stagesPerPipe) + std::size_t(e.op.stage);
    if (e.lane != Lane::Compute || e.op.stage < 0 || slot >= p.setup.memory.stages.size()) return bytes;
    const bool recomputed = p.index && e.op.mb >= 0 && e.op.mb < s.microbatches && e.op.pipe < s.pipes &&
                            e.op.stage < s.stagesPerPipe &&
                            p.index->recomputed(e.op.pipe, e.op.stage, e.op.mb);
    const OpMemoryChange change = opMemoryChange(p.setup.memory, slot, e.op, s.splitBackward, recomputed);
    // An allocation at the start is inside the curve before `end` unless the op took no time.
    if (e.start == e.end) bytes += change.allocated;
    bytes -= change.freed;
    return bytes;
}

EventDependencies::EventDependencies(const Prediction& prediction)
    : m_index(prediction.index), m_timeline(&prediction.timeline) {
    if (!m_index) throw std::logic_error("EventDependencies: the prediction has no op index");
    const std::size_t ops = m_index->opCount();
    m_eventOfGid.assign(ops, -1);
    for (std::size_t i = 0; i < m_timeline->events.size(); ++i) {
        const int gid = gidOf(int(i));
        if (gid >= 0) m_eventOfGid[std::size_t(gid)] = int(i);
    }
    // Consumers are the reverse of the index's producers, laid out once (counting sort).
    m_consumerStart.assign(ops + 1, 0);
    for (std::size_t g = 0; g < ops; ++g) {
        const OpDeps& deps = m_index->depsOf(g);
        for (const std::int32_t p : {deps.first, deps.second})
            if (p >= 0) ++m_consumerStart[std::size_t(p) + 1];
    }
    for (std::size_t g = 0; g < ops; ++g) m_consumerStart[g + 1] += m_consumerStart[g];
    m_consumers.resize(m_consumerStart[ops]);
    std::vector<std::size_t> fill(m_consumerStart.begin(), m_consumerStart.end() - 1);
    for (std::size_t g = 0; g < ops; ++g) {
        const OpDeps& deps = m_index->depsOf(g);
        for (const std::int32_t p : {deps.first, deps.second})
            if (p >= 0) m_consumers[fill[std::size_t(p)]++] = std::int32_t(g);
    }
}

int EventDependencies::gidOf(int event) const {
    if (event < 0 || std::size_t(event) >= m_timeline->events.size()) return -1;
    const TimelineEvent& e = m_timeline->events[std::size_t(event)];
    if (e.lane != Lane::Compute || !isComputeKind(e.op.kind)) return -1;
    const OpRef ref = m_index->find(e.op.kind, e.op.pipe, e.op.stage, e.op.mb);
    return ref.valid() ? int(m_index->globalId(ref)) : -1;
}

std::vector<int> EventDependencies::producers(int event) const {
    std::vector<int> out;
    const int gid = gidOf(event);
    if (gid < 0) return out;
    const OpDeps& deps = m_index->depsOf(std::size_t(gid));
    for (const std::int32_t p : {deps.first, deps.second})
        if (p >= 0 && m_eventOfGid[std::size_t(p)] >= 0) out.push_back(m_eventOfGid[std::size_t(p)]);
    return out;
}

std::vector<int> EventDependencies::consumers(int event) const {
    std::vector<int> out;
    const int gid = gidOf(event);
    if (gid < 0) return out;
    for (std::size_t i = m_consumerStart[std::size_t(gid)]; i < m_consumerStart[std::size_t(gid) + 1]; ++i) {
        const int e = m_eventOfGid[std::size_t(m_consumers[i])];
        if (e >= 0) out.push_back(e);
    }
    return out;
}

} // namespace stagecraft
