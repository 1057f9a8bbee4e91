#include "gui/models/format.h"

#include "number_text.h"

namespace stagecraft::gui {

QString formatMicros(double us) {
    return QString::fromStdString(durationText(us));
}

QString formatUnits(double units) {
    return QString::fromStdString(unitsText(units));
}

QString formatBytes(double bytes) {
    return QString::fromStdString(bytesText(bytes));
}

QString formatPercent(double fraction) {
    return QStringLiteral("%1 %").arg(QString::number(fraction * 100, 'f', 1));
}

QString formatSignedPercent(double fraction) {
    return QStringLiteral("%1%2 %").arg(fraction >= 0 ? QStringLiteral("+") : QString(),
                                        QString::number(fraction * 100, 'f', 1));
}

} // namespace stagecraft::gui
