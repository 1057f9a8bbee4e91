#include "gui/models/op_details.h"

#include "gui/models/format.h"
#include "ir/op_name.h"

#include <QStringList>
#include <algorithm>

namespace stagecraft::gui {
namespace {

QString timeText(double t, bool unitless) {
    return unitless ? formatUnits(t) : formatMicros(t);
}

} // namespace

QString describeEvent(const TimelineEvent& e, bool splitBackward, bool unitless) {
    // The op's one name (opName), as the CLI, the viewer and error messages write it.
    const QString name = QString::fromStdString(opName(e.op, splitBackward));
    QString head = name;
    if (e.lane == Lane::Comm) {
        switch (e.comm) {
        case CommKind::Activation:
            head = QStringLiteral("Send activation of ") + name;
            break;
        case CommKind::Gradient:
            head = QStringLiteral("Send gradient of ") + name;
            break;
        case CommKind::Collective:
            head = QStringLiteral("Gradient all-reduce ") + name;
            break;
        case CommKind::None:
            head = QStringLiteral("Transfer of ") + name;
            break;
        }
    }
    QStringList parts{head};
    if (e.peer >= 0)
        parts << QStringLiteral("device %1 → %2").arg(e.device).arg(e.peer);
    else
        parts << QStringLiteral("device %1").arg(e.device);
    return parts.join(QStringLiteral(" · ")) + QLatin1Char('\n') +
           QStringLiteral("start %1 · end %2 · duration %3")
               .arg(timeText(e.start, unitless), timeText(e.end, unitless), timeText(e.duration(), unitless));
}

QString memoryAfterText(const Prediction& p, const TimelineEvent& e) {
    const double value = memoryAfterOp(p, e);
    return QStringLiteral("memory after: ") +
           (p.report.unitless ? QStringLiteral("%1 × M_a").arg(QString::number(value, 'g', 4))
                              : formatBytes(value));
}

} // namespace stagecraft::gui
