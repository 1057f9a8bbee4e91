#pragma once
// The figure of a fidelity check: a measured torch run under its prediction by the runtime fit,
// each device's measured row under its predicted row (core's paired rows, layout/compared_rows.h,
// as every front end draws a measurement with its prediction), in core's chart layout (so it
// exports to SVG, TikZ, PDF and PNG like every other chart). docs/fidelity.md.

#include "eval/chart_composition.h"
#include "eval/runtime_fit.h"
#include "layout/scene.h"

#include <string>

namespace stagecraft {

/// The figure: each device's measured row directly under its predicted row, on one time axis and
/// from one origin (the iteration's start), titled `name` with both runs' key figures; rows
/// "D0 predicted", "measured", "D1 predicted" ... Ops are matched for the tooltips when the two
/// timelines hold the same ops; otherwise each box names its own side only. Throws
/// ValidationError from the layout (bad width or palette).
Scene buildRunComparisonScene(const RunTimelines& run, const std::string& name, const ChartSettings& settings,
                              double widthPt);

/// The predicted schedules stacked on one time axis, each titled with its name and torch runtime
/// and its key figures (refused ones left out): which schedule would be fastest on the fitted
/// machine. Throws ValidationError("chart.panels") when none was predicted, and from the layout.
Scene buildPredictionsScene(const std::vector<SchedulePrediction>& predictions, const ChartSettings& settings,
                            double widthPt);

} // namespace stagecraft
