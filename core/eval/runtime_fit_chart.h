#pragma once
// The figure of a fidelity check: a measured torch run above its prediction by the runtime fit,
// on one time axis, in core's chart layout (so it exports to SVG, TikZ, PDF and PNG like every
// other chart). docs/fidelity.md.

#include "eval/chart_composition.h"
#include "eval/runtime_fit.h"
#include "layout/scene.h"

#include <string>

namespace stagecraft {

/// One timeline whose rows are the run's devices in pairs: device d measured (row 2d), then its
/// prediction (row 2d + 1); transfers keep their pairs' rows.
Timeline interleaveRows(const RunTimelines& run);

/// The figure: each device's measured row directly above its predicted row, on one time axis,
/// titled `name` with both runs' key figures; rows "D0 measured", "predicted", "D1 measured" ...
/// Throws ValidationError from the layout (bad width or palette).
Scene buildRunComparisonScene(const RunTimelines& run, const std::string& name, const ChartSettings& settings,
                              double widthPt);

/// The predicted schedules stacked on one time axis, each titled with its name and torch runtime
/// and its key figures (refused ones left out): which schedule would be fastest on the fitted
/// machine. Throws ValidationError("chart.panels") when none was predicted, and from the layout.
Scene buildPredictionsScene(const std::vector<SchedulePrediction>& predictions, const ChartSettings& settings,
                            double widthPt);

} // namespace stagecraft
