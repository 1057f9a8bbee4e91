#include "gui/models/format.h"

#include <cmath>

namespace stagecraft::gui {
namespace {

QString significant(double value) {
    const double a = std::abs(value);
    const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
    return QString::number(value, 'f', decimals);
}

} // namespace

QString formatMicros(double us) {
    const double a = std::abs(us);
    if (a >= 1e6) return QStringLiteral("%1 s").arg(QString::number(us / 1e6, 'f', 3));
    if (a >= 1e3) return QStringLiteral("%1 ms").arg(significant(us / 1e3));
    return QStringLiteral("%1 µs").arg(significant(us));
}

QString formatUnits(double units) {
    return QStringLiteral("%1 units").arg(QString::number(units, 'g', 6));
}

QString formatBytes(double bytes) {
    const double a = std::abs(bytes);
    if (a >= 1024.0 * 1024 * 1024)
        return QStringLiteral("%1 GiB").arg(significant(bytes / (1024.0 * 1024 * 1024)));
    if (a >= 1024.0 * 1024) return QStringLiteral("%1 MiB").arg(significant(bytes / (1024.0 * 1024)));
    if (a >= 1024.0) return QStringLiteral("%1 KiB").arg(significant(bytes / 1024.0));
    return QStringLiteral("%1 B").arg(QString::number(bytes, 'f', 0));
}

QString formatPercent(double fraction) {
    return QStringLiteral("%1 %").arg(QString::number(fraction * 100, 'f', 1));
}

QString formatSignedPercent(double fraction) {
    return QStringLiteral("%1%2 %").arg(fraction >= 0 ? QStringLiteral("+") : QString(),
                                        QString::number(fraction * 100, 'f', 1));
}

} // namespace stagecraft::gui
