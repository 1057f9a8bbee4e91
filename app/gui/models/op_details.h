#pragma once
// What the Gantt view says about one bar, as Qt text; the memory and dependency logic is core's
// (eval/op_inspect.h).

#include "eval/op_inspect.h"
#include "eval/project_simulation.h"
#include "sim/timeline.h"

#include <QString>
#include <vector>

namespace stagecraft::gui {

/// "5F3 · device 1" (the op's one name, opName, as the timeline's `shape` names it) and a
/// start/end/duration line; `unitless` prints times as units instead of µs.
QString describeEvent(const TimelineEvent& event, const TimelineShape& shape, bool unitless);

/// "memory after: 12.3 GiB" ("memory after: 3 × M_a" in unit mode).
QString memoryAfterText(const Prediction& prediction, const TimelineEvent& event);

} // namespace stagecraft::gui
