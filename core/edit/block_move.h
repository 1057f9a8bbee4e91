#pragma once
// Moving a block of ops of one device as one step (the window's multi-select): the edits that
// take every op of the block to a gap, or shift each of them, keeping their order. The result is
// an ordinary list of edits, to apply as one undo step and to save in an edit list.

#include "edit/edit.h"
#include "edit/schedule_editor.h"

#include <vector>

namespace stagecraft {

/// The block's ops in their device's order. Throws ValidationError "edit.op" for an op the
/// schedule lacks and "edit.target" (field "block") when the ops are not all on one device.
std::vector<Op> orderedBlock(const ScheduleEditor& editor, const std::vector<Op>& block);

/// Every op of `block` right before (`anchor` Before) or after `other`, in the block's order:
/// `move B0 before OTHER`, `move B1 after B0`, ... `other` must be on the block's device and not
/// in the block (ValidationError "edit.target" otherwise). The edits between may break the order;
/// what counts is the order after the last.
std::vector<Edit> blockMove(const ScheduleEditor& editor, const std::vector<Op>& block, MoveAnchor anchor,
                            const Op& other);

/// Every op of `block` `by` places later (positive) or earlier, the op farthest in that
/// direction first, so a contiguous block moves as one: `shift B2 +1`, `shift B1 +1`, ...
std::vector<Edit> blockShift(const ScheduleEditor& editor, const std::vector<Op>& block, std::int64_t by);

} // namespace stagecraft
