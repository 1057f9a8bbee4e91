#pragma once
// The chart layout engine: timelines -> Scene. Panels are stacked under one shared time axis
// (one scale for all, so schedules compare side by side); each panel has a header, one row per
// device with its compute ops as labelled bars, and optionally a thin comm lane per device. A
// legend lists only what occurs. Every renderer draws the resulting Scene.

#include "layout/chart_common.h"
#include "layout/scene.h"

#include <span>

namespace stagecraft {

/// The frame (headers, rows, axis, legend) is layoutChartFrame's (chart_frame.h), shared with the
/// windowed screen chart (chart_rows.h).
/// Throws ValidationError: "chart.panels" (none, or one without a timeline), "chart.width"
/// (width not in [100, 100000] pt or too narrow for the labels), "chart.time" (timeEnd or
/// timeStart negative or not finite, or timeStart not before the axis end), "chart.devices" (a device index
/// beyond 4096 rows), "chart.palette". Events with a negative device, non-finite or backward times, an
/// unknown kind, or zero length draw nothing. Linear in events.
Scene layoutGantt(std::span<const ChartPanel> panels, const ChartOptions& options);

} // namespace stagecraft
