#pragma once
// The memory panel's curves, ready to show: each device's step curve of one schedule in the
// chart's units, thinned to at most kMemoryColumns columns of equal time, each at the highest
// value the device holds in it (the peak survives; a column is a pixel or two of the dock). A
// curve has two changes per op, 33 M points at 16.8 M ops: the analysis worker builds these with a
// large result, so the window only hands a few thousand points per device to the chart.

#include "eval/evaluation.h"

#include <QList>
#include <QPointF>
#include <memory>
#include <vector>

namespace stagecraft::gui {

/// Columns per curve: about the width of the memory dock in pixels on a wide screen.
constexpr int kMemoryColumns = 1024;

/// One schedule's curves: x in the time axis's unit (ms, or units when unitless), y in its memory
/// unit (GiB, or × M_a).
struct MemoryCurves {
    std::vector<QList<QPointF>> devices;
};

/// The curves of every outcome of `result`, in outcome order; any thread.
using PreparedMemory = std::vector<MemoryCurves>;

/// `curve` ((time µs, bytes) after each change, in time order) as the points of a step line from
/// 0 to `end` (µs): every step when it has fewer than `columns` points, else the highest value of
/// each of `columns` equal slices of [0, end), two points each (merged where they are equal);
/// at most 2 × `columns` points either way. Scaled by `timeScale` and `valueScale`.
QList<QPointF> memoryStepPoints(const std::vector<std::pair<double, double>>& curve, double end,
                                double timeScale, double valueScale, int columns = kMemoryColumns);

/// Every device's curve of `outcome`.
MemoryCurves buildMemoryCurves(const ScheduleOutcome& outcome);

/// The curves of every outcome of `result`.
std::shared_ptr<const PreparedMemory> prepareMemory(const AnalysisResult& result);

/// The units of the memory chart of `outcome`: µs to the time axis, bytes to the value axis.
double memoryTimeScale(const ScheduleOutcome& outcome);
double memoryValueScale(const ScheduleOutcome& outcome);

} // namespace stagecraft::gui
