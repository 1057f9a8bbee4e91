#include "gui/models/op_details.h"

#include "gui/models/format.h"
#include "layout/chart_view.h"

#include <QStringList>
#include <algorithm>

namespace stagecraft::gui {
QString describeEvent(const TimelineEvent& e, const TimelineShape& shape, bool unitless) {
    // Core's hover text, as the viewer's hover says it.
    return QString::fromStdString(eventHoverText(e, shape, unitless));
}

QString memoryAfterText(const Prediction& p, const TimelineEvent& e) {
    const double value = memoryAfterOp(p, e);
    return QStringLiteral("memory after: ") +
           (p.report.unitless ? QStringLiteral("%1 × M_a").arg(QString::number(value, 'g', 4))
                              : formatBytes(value));
}

} // namespace stagecraft::gui
