#include "edit/editor_costs.h"

#include "sim/memory_model.h"

namespace stagecraft {

namespace {

Schedule splitForm(const Schedule& schedule) {
    Schedule split = schedule;
    split.splitBackward = true;
    return split;
}

} // namespace

CostSetup editorCostSetup(const Project& project, const Schedule& schedule) {
    return buildCostSetup(project, splitForm(schedule));
}

CostSetup unitEditorCostSetup(const Schedule& schedule) {
    const Schedule split = splitForm(schedule);
    CostSetup setup;
    setup.costs = fullStageCosts(split, 1, 1, 1);
    setup.memory = unitMemoryInputs(split);
    setup.unitless = true;
    return setup;
}

} // namespace stagecraft
