#include "gui/models/op_details.h"

#include "gui/models/format.h"
#include "layout/chart_view.h"

#include <QStringList>
#include <algorithm>

namespace stagecraft::gui {
namespace {

QString timeText(double t, bool unitless) {
    return unitless ? formatUnits(t) : formatMicros(t);
}

} // namespace

QString describeEvent(const TimelineEvent& e, bool splitBackward, bool unitless) {
    // The op's one name (opName) and what a transfer carries: core's eventTitle, as the viewer's
    // hover says it.
    const QString head = QString::fromStdString(eventTitle(e, splitBackward));
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
