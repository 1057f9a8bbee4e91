#pragma once
// Designer's helpers that fill the idle time of each device with ops later in its order, as edits.
// "Fill bubbles" is the zero-bubble papers' observation as a tool: a W has no consumer on another
// device, so it can run in any gap after its B, and running it earlier frees the activations it
// keeps (M_W) earlier. "Compact" does the same with every kind of op.

#include "edit/schedule_editor.h"

#include <vector>

namespace stagecraft {

/// Moves W ops, one edit each, into idle gaps of their own device: before an op X that waits
/// (starts later than the op before it ends), the first W later in the order whose B has ended by
/// the gap's start and that fits in the gap (ends by X's start), moved right before X. Applied
/// to `editor` in turn; returns the edits, in order (each an ordinary `move W before X`, to list,
/// save or undo). No op starts later than before: every W ends within its gap, and taking a W
/// out of its old place only lets later ops start earlier. Memory never rises: a W only moves
/// earlier, and W frees memory. Does nothing on a broken order or one without W ops.
std::vector<Edit> fillBubbles(ScheduleEditor& editor);

/// "Compact": the same for ops of every kind, so every op is pulled into the earliest idle gap of
/// its device where its inputs have arrived and it fits. Nothing starts later (the same argument:
/// a moved op ends within its gap, and its consumers can only start earlier), but memory may rise:
/// a forward pulled earlier holds its activations longer. Compute ops only: gradient syncs and
/// optimizer steps wait for their stage's backwards, and a sync takes no device time (the gap
/// after it is counted from the op before it).
std::vector<Edit> compact(ScheduleEditor& editor);

} // namespace stagecraft
