#include "gui/models/op_details.h"

#include "gui/models/format.h"

#include <QStringList>
#include <algorithm>

namespace stagecraft::gui {
namespace {

QString timeText(double t, bool unitless) {
    return unitless ? formatUnits(t) : formatMicros(t);
}

} // namespace

QString describeEvent(const TimelineEvent& e, bool unitless) {
    QString head;
    if (e.lane == Lane::Comm) {
        switch (e.comm) {
        case CommKind::Activation:
            head = QStringLiteral("Send activation of F");
            break;
        case CommKind::Gradient:
            head = QStringLiteral("Send gradient of B");
            break;
        case CommKind::Collective:
            head = QStringLiteral("Gradient all-reduce");
            break;
        case CommKind::None:
            head = QStringLiteral("Transfer");
            break;
        }
    } else {
        head = QString::fromUtf8(opKindName(e.op.kind));
    }
    QStringList parts{head};
    if (e.op.mb >= 0) parts << QStringLiteral("mb %1").arg(e.op.mb);
    parts << QStringLiteral("stage %1").arg(e.op.stage) << QStringLiteral("pipe %1").arg(e.op.pipe);
    if (e.peer >= 0)
        parts << QStringLiteral("device %1 → %2").arg(e.device).arg(e.peer);
    else
        parts << QStringLiteral("device %1").arg(e.device);
    return parts.join(QStringLiteral(" · ")) + QLatin1Char('\n') +
           QStringLiteral("start %1 · end %2 · duration %3")
               .arg(timeText(e.start, unitless), timeText(e.end, unitless), timeText(e.duration(), unitless));
}

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
    const StageMemory& m = p.setup.memory.stages[slot];
    switch (e.op.kind) {
    case OpKind::F:
        // Allocated at its start, which is inside the curve before `end` unless it took no time.
        if (e.start == e.end) bytes += m.activationBytes;
        break;
    case OpKind::B:
        bytes -= s.splitBackward ? m.activationBytes - m.keptForWBytes : m.activationBytes;
        break;
    case OpKind::W:
        bytes -= m.keptForWBytes;
        break;
    default:
        break;
    }
    return bytes;
}

QString memoryAfterText(const Prediction& p, const TimelineEvent& e) {
    const double value = memoryAfterOp(p, e);
    return QStringLiteral("memory after: ") +
           (p.report.unitless ? QStringLiteral("%1 × M_a").arg(QString::number(value, 'g', 4))
                              : formatBytes(value));
}

DependencyIndex::DependencyIndex(const Schedule& schedule, const Timeline& timeline)
    : m_index(schedule), m_timeline(&timeline), m_eventOfGid(m_index.opCount(), -1) {
    for (std::size_t i = 0; i < timeline.events.size(); ++i) {
        const TimelineEvent& e = timeline.events[i];
        if (e.lane != Lane::Compute || !isComputeKind(e.op.kind)) continue;
        const OpRef ref = m_index.find(e.op.kind, e.op.pipe, e.op.stage, e.op.mb);
        if (ref.valid()) m_eventOfGid[m_index.globalId(ref)] = int(i);
    }
}

int DependencyIndex::gidOf(int event) const {
    if (event < 0 || std::size_t(event) >= m_timeline->events.size()) return -1;
    const TimelineEvent& e = m_timeline->events[std::size_t(event)];
    if (e.lane != Lane::Compute || !isComputeKind(e.op.kind)) return -1;
    const OpRef ref = m_index.find(e.op.kind, e.op.pipe, e.op.stage, e.op.mb);
    return ref.valid() ? int(m_index.globalId(ref)) : -1;
}

std::vector<int> DependencyIndex::producers(int event) const {
    std::vector<int> out;
    const int gid = gidOf(event);
    if (gid < 0) return out;
    const OpDeps& deps = m_index.depsOf(std::size_t(gid));
    for (const std::int32_t p : {deps.first, deps.second})
        if (p >= 0 && m_eventOfGid[std::size_t(p)] >= 0) out.push_back(m_eventOfGid[std::size_t(p)]);
    return out;
}

std::vector<int> DependencyIndex::consumers(int event) const {
    std::vector<int> out;
    const int gid = gidOf(event);
    if (gid < 0) return out;
    for (std::size_t g = 0; g < m_index.opCount(); ++g) {
        const OpDeps& deps = m_index.depsOf(g);
        if ((deps.first == gid || deps.second == gid) && m_eventOfGid[g] >= 0) out.push_back(m_eventOfGid[g]);
    }
    return out;
}

} // namespace stagecraft::gui
