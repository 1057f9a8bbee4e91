#pragma once
// Numbers and times as text, one rule for every front end (GUI tables and tooltips, the viewer,
// the CLI's reports, core's own summaries): about four significant digits, at most three
// decimals, trailing zeros dropped; a time in µs, ms or s, switching at one of the larger unit.
// A base header (core/'s root) because the cost model's summary and the chart layout below
// `text` need it too.

#include <cstddef>
#include <string>

namespace stagecraft {

/// "12", "2.5", "0.125": up to `decimals` decimals, trailing zeros removed, never "-0"; "?" when
/// the value is not finite.
std::string formatNumber(double value, int decimals = 3);
/// `value` with exactly `decimals` digits after the point, as printf's %.*f: the columns of
/// machine-read files (metrics CSV) keep a fixed precision.
std::string fixedText(double value, int decimals);
/// `value` with about `digits` significant digits and at most 3 decimals, trailing zeros dropped:
/// a makespan reads "380.3" (ms), "33", "1.235", never "380.259".
std::string formatSignificant(double value, int digits = 4);

/// A duration given in µs, in the largest unit it reaches (µs, ms from 1 ms, s from 1 s) with
/// formatSignificant's digits: "850 µs", "12.35 ms", "1.204 s", "-3.5 ms".
std::string durationText(double us);
/// A duration in ms as a bare number, for table columns whose header names the unit: "12.35".
std::string millisecondsText(double us);
/// `n` of `of` as a percentage with one decimal: "12.5 %" ("0.0 %" when `of` is 0).
std::string shareText(std::size_t n, std::size_t of);
/// Time under unit costs: "42.5 units".
std::string unitsText(double units);
/// Digits grouped by thousands with commas: 40000000 -> "40,000,000".
std::string groupedInteger(std::size_t value);
/// Bytes in GiB with two decimals, for messages that compare sizes: "11.18 GiB".
std::string gibText(double bytes);
/// Bytes in the largest binary unit they reach (B, KiB, MiB, GiB) with formatSignificant's digits:
/// "512 MiB", "1.5 GiB".
std::string bytesText(double bytes);

/// durationText(us), or the bare number of units under unit costs (chart hover and side panels).
std::string durationText(double t, bool unitless);

} // namespace stagecraft
