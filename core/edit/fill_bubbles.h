#pragma once
// "Fill bubbles", a designer's helper: slide W ops into the idle time of their device. The zero-
// bubble papers' observation as a tool: a W has no consumer on another device, so it can run in
// any gap after its B, and running it earlier frees the activations it keeps (M_W) earlier.

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

} // namespace stagecraft
