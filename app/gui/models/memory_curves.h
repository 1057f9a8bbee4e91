#pragma once
// The memory panel's curves, ready to show: each device's step curve of one schedule in the
// chart's units, thinned to kMemoryColumns columns of equal time, each drawn as the range of values
// the device holds in it (the peak survives; a column is about a pixel of the dock). A
// curve has two changes per op, 33 M points at 16.8 M ops: the analysis worker builds these with a
// large result, so the window only hands a few thousand points per device to the chart.

#include "eval/evaluation.h"

#include <QList>
#include <QPointF>
#include <memory>
#include <vector>

namespace stagecraft::gui {

/// Columns per curve: about the width of the memory dock in pixels.
constexpr int kMemoryColumns = 512;

/// One schedule's curves: x in the time axis's unit (ms, or units when unitless), y in its memory
/// unit (GiB, or × M_a).
struct MemoryCurves {
    std::vector<QList<QPointF>> devices;
};

/// The curves of every outcome of `result`, in outcome order; any thread.
using PreparedMemory = std::vector<MemoryCurves>;

/// `curve` ((time µs, bytes) after each change, in time order) as the points of a step line from
/// 0 to `end` (µs): every step when it has fewer than 2 × `columns` points, else for each of
/// `columns` equal slices of [0, end) the value it enters with, its highest, its lowest and the
/// value it leaves with, at the slice's start (repeats dropped); at most 4 × `columns` + 1 points
/// either way. Scaled by `timeScale` and `valueScale`.
QList<QPointF> memoryStepPoints(const std::vector<std::pair<double, double>>& curve, double end,
                                double timeScale, double valueScale, int columns = kMemoryColumns);

/// Every device's curve of `outcome`.
MemoryCurves buildMemoryCurves(const ScheduleOutcome& outcome);

/// The curves of every outcome of `result`.
std::shared_ptr<const PreparedMemory> prepareMemory(const AnalysisResult& result);

/// Where the memory chart of `outcome` ends (µs): its makespan, without a pass over its events.
double memoryTimeEnd(const ScheduleOutcome& outcome);
/// The units of the memory chart of `outcome`: µs to the time axis, bytes to the value axis.
double memoryTimeScale(const ScheduleOutcome& outcome);
double memoryValueScale(const ScheduleOutcome& outcome);

} // namespace stagecraft::gui
