#include "gui/models/chart_overlays.h"

#include "error.h"
#include "gui/models/format.h"
#include "ir/op_index.h"
#include "ir/op_name.h"
#include "sim/critical_path.h"

namespace stagecraft::gui {

std::vector<std::size_t> criticalPathOf(const Prediction& p) {
    try {
        return criticalPath(p.schedule, OpIndex(p.schedule), p.timeline, &p.setup.costs);
    } catch (const Error&) {
        return {};
    }
}

std::vector<IdleInterval> idleIntervalsOf(const Prediction& p) {
    try {
        return idleIntervals(p.schedule, OpIndex(p.schedule), p.timeline, &p.setup.costs);
    } catch (const Error&) {
        return {};
    }
}

QString describeIdle(const IdleInterval& iv, const Timeline& timeline, bool unitless) {
    const QString length = unitless ? formatUnits(iv.duration()) : formatMicros(iv.duration());
    QString producer;
    if (iv.producer >= 0 && std::size_t(iv.producer) < timeline.events.size())
        producer =
            QString::fromStdString(opName(timeline.events[std::size_t(iv.producer)].op,
                                          timeline.shape.splitBackward, timeline.shape.sequenceSlices));
    QString what;
    switch (iv.cause) {
    case IdleCause::Warmup:
        what = QStringLiteral("warmup");
        break;
    case IdleCause::Cooldown:
        what = QStringLiteral("cooldown");
        break;
    case IdleCause::WaitingOn:
        what = QStringLiteral("waiting on D%1 for %2").arg(iv.waitingOnDevice).arg(producer);
        break;
    case IdleCause::Communication:
        what = QStringLiteral("transfer of %1 from D%2").arg(producer).arg(iv.waitingOnDevice);
        break;
    case IdleCause::Other:
        what = QStringLiteral("idle (collective or other)");
        break;
    }
    return what + QStringLiteral(" · ") + length;
}

QColor idleColor(IdleCause cause) {
    switch (cause) {
    case IdleCause::Warmup:
    case IdleCause::Cooldown:
        return QColor(0x9e, 0x9e, 0x9e);
    case IdleCause::WaitingOn:
        return QColor(0xe6, 0x55, 0x0d);
    case IdleCause::Communication:
        return QColor(0x21, 0x71, 0xb5);
    case IdleCause::Other:
        return QColor(0x75, 0x6b, 0xb1);
    }
    return QColor(0x9e, 0x9e, 0x9e);
}

} // namespace stagecraft::gui
