#pragma once
// What the chart can draw over a schedule's bars besides the selection: its critical path and
// its idle gaps by cause (core's criticalPath and idleIntervals of the prediction), and the
// hover text of a gap.

#include "eval/project_simulation.h"
#include "sim/idle_intervals.h"

#include <QColor>
#include <QString>
#include <cstddef>
#include <vector>

namespace stagecraft::gui {

/// Event indices of the prediction's critical path, first to last (empty when core refuses).
std::vector<std::size_t> criticalPathOf(const Prediction& prediction);

/// Idle intervals of the prediction's timeline, with the costs it was simulated with.
std::vector<IdleInterval> idleIntervalsOf(const Prediction& prediction);

/// "waiting on D3 for 3B5 · 1.20 ms", "transfer of 3B5 from D3 · 500 µs", "warmup · 2 units".
QString describeIdle(const IdleInterval& interval, const Timeline& timeline, bool unitless);

/// Tint of a gap of this cause (hatched on screen).
QColor idleColor(IdleCause cause);

} // namespace stagecraft::gui
