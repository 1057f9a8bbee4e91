#pragma once
// The figure of a fidelity check: a measured torch run above its prediction by the runtime fit,
// on one time axis, in core's chart layout (so it exports to SVG, TikZ, PDF and PNG like every
// other chart). docs/fidelity.md.

#include "eval/chart_composition.h"
#include "eval/runtime_fit.h"
#include "layout/scene.h"

#include <string>

namespace stagecraft {

/// Two panels on one time axis: "measured" (`name`, the run's median iteration) and "predicted"
/// (the representative timing of its programs), each with its key figures. Throws
/// ValidationError from the layout (bad width or palette).
Scene buildRunComparisonScene(const RunTimelines& run, const std::string& name, const ChartSettings& settings,
                              double widthPt);

} // namespace stagecraft
