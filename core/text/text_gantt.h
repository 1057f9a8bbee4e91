#pragma once
// An order-only Gantt chart of a schedule for the terminal, drawn like the papers' figures:
// one row per device, one column per step, every op one step long and placed at the first step
// at which its device is free and its inputs exist (list scheduling with unit durations).

#include "ir/op_label.h" // opLabel, the cell labels
#include "ir/schedule.h"

#include <string>

namespace stagecraft {

struct TextGanttOptions {
    bool color = false; ///< ANSI colours: forward, backward, weight gradient, sync
    int maxSteps = 0;   ///< cut the chart after this many steps (0 = all)
};

/// The chart, with a header naming the schedule and a legend. Throws ValidationError when the
/// schedule deadlocks (validate it first for a full report).
std::string renderTextGantt(const Schedule& schedule, const TextGanttOptions& options = {});

} // namespace stagecraft
