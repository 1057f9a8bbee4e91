#include "gui/models/op_details.h"

#include "gui/models/format.h"

#include <QStringList>

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
