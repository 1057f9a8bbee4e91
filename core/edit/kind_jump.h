#pragma once
// "Jump over a kind" (the window's Alt+Up / Alt+Down): move an op past the whole run of ops of one
// kind next to it in its device's order, in one edit. Precisely: the unit next to the op (after
// it for a jump later, before it for a jump earlier) has some kind K; the op moves past that unit
// and every unit of kind K that follows it on that side without a break, so that its new
// neighbour on that side is of another kind than K, or the end of the order. A unit is one op,
// or a whole backward (its B and W run as one slot, ir/overlap.h), which counts as a B and is
// never split by the jump. The edit is an ordinary `shift OP +N` / `shift OP -N`.

#include "edit/edit.h"
#include "edit/schedule_editor.h"

namespace stagecraft {

/// The shift that jumps `op` over the run of one kind after it (`later`) or before it. Throws
/// ValidationError "edit.op" when the schedule lacks `op` and "edit.target" when nothing is on
/// that side of it.
Edit kindJump(const ScheduleEditor& editor, const Op& op, bool later);

} // namespace stagecraft
