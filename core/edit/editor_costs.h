#pragma once
// The costs a ScheduleEditor times with, the same for every front end (the window, the CLI, the
// Python module): a project's, or the papers' unit costs, in the split convention the editor
// takes (B the input gradient, W the weight gradient), so that splitting a backward is timed right
// whatever form the schedule is in.

#include "ir/schedule.h"
#include "project/project.h"
#include "sim/cost_model.h"

namespace stagecraft {

/// `project`'s costs and memory inputs for `schedule`, in the split convention (buildCostSetup's
/// errors).
CostSetup editorCostSetup(const Project& project, const Schedule& schedule);

/// Unit costs (F = B = W = 1 per full stage, no transfer time, syncs and steps free) in the split
/// convention, with unit memory inputs.
CostSetup unitEditorCostSetup(const Schedule& schedule);

} // namespace stagecraft
