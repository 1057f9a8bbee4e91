#pragma once
// Number formatting shared by the tables, tooltips and the error panel.

#include <QString>

namespace stagecraft::gui {

/// core's durationText (number_text.h) as a QString: "850 µs", "12.35 ms", "1.204 s".
QString formatMicros(double us);
/// core's unitsText: "42 units" / "42.5 units".
QString formatUnits(double units);
/// core's bytesText: "12.3 GiB", "512 MiB".
QString formatBytes(double bytes);
/// 0.1234 -> "12.3 %".
QString formatPercent(double fraction);
/// Signed relative error: 0.052 -> "+5.2 %".
QString formatSignedPercent(double fraction);

} // namespace stagecraft::gui
