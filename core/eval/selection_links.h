#pragma once
// What a click on a chart's box outlines, in every front end (the Qt chart, the ImGui viewer): the
// ops the selected op waits for and the ops that wait for it, as boxes of the panel clicked. A
// predicted box has its schedule's dependencies (EventDependencies). A measured box has its
// prediction's, drawn on the measured boxes of those ops: a trace has no schedule of its own to
// ask, and the user looking at a measured row wants the measured ops that held it up. Ops the
// trace did not measure are left out.

#include "eval/op_inspect.h"
#include "layout/compared_rows.h"

#include <cstdint>
#include <vector>

namespace stagecraft {

struct SelectionLinks {
    std::vector<int> producers; ///< what the selected op waits for
    std::vector<int> consumers; ///< what waits for it
};

/// Event `event` of a panel of one prediction (`deps`), or of paired rows (`rows`: each device's
/// measured row under its predicted row; its measured events come after the predicted ones).
SelectionLinks selectionLinks(const EventDependencies& deps, int event, const ComparedRows* rows = nullptr);

/// Measured event `event` of a trace shown in a panel of its own, paired with a prediction
/// (`deps`) by the overlay's matching: `toPredicted[measured event]` and
/// `toMeasured[predicted event]`, -1 where unmatched.
SelectionLinks pairedSelectionLinks(const EventDependencies& deps, int event,
                                    const std::vector<std::int32_t>& toPredicted,
                                    const std::vector<std::int32_t>& toMeasured);

} // namespace stagecraft
