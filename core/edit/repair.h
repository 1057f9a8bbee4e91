#pragma once
// "Repair": a valid order near a broken one (an op before its own producer, devices waiting on
// each other in a ring), reached by moves that are listed as ordinary edits, each with the reason
// it was needed.
//
// The greedy, and why it ends: run the order as far as it goes, device by device (an op runs when
// the op before it on its device and its producers have run: the list scheduler's rule without
// times). Where every device that has ops left is stuck, each stuck op X waits for some Y. Two
// moves are tried for each: a *pull* follows what X waits for, and what that waits for, to an op
// R that can run now (one exists: the dependencies of F, B and W form no cycle) and moves R
// before the stuck op of R's device; a *push* moves X itself out of the way (right after Y when Y
// is on X's device, else right before X's first consumer there). Each is tried on a copy of the
// dry run. Made is, of those that let some op run: one after which the order runs; else the one
// that leaves the fewest ops before a producer of their own device (each of those needs a move
// anyway); then the one after which most ops run; then the op that travels least. A pull always
// lets at least R run, so every move lets the order go on: at most as many moves as ops, and the order that
// results runs. A valid order needs none. The greedy only aims at fewest moves: each move is one
// the order needed at that moment (no device could go on without one), chosen for how far it
// gets; the search below proves or improves its count.
//
// Gradient syncs and optimizer steps wait for every backward of their stage, which the dry run
// (two producers per op) does not follow: once the compute order runs, each sync or step that
// sits before something it waits for moves right after the last of it (later only, so no compute
// op waits longer), and should a step still wait in a ring through its collective, the steps go
// to the ends of their devices' orders.

#include "edit/schedule_editor.h"

#include <string>
#include <vector>

namespace stagecraft {

/// Whether the repair's moves are provably the fewest (edit/fewest_moves.h).
struct RepairSearch {
    bool fewest = false;         ///< no order with fewer moved ops runs (searched, or one move)
    std::size_t greedyMoves = 0; ///< what the greedy made before the search (0: nothing to repair)
    std::size_t steps = 0;       ///< cycle checks the search made
};

struct RepairMove {
    Edit edit;          ///< "move 1I3 before 1W3", or "split 2B4" (see repair)
    std::string reason; ///< which device was stuck where, on what, and why this op was moved
};

/// Repairs `editor`'s order in place with the moves above and returns them, in the order applied
/// (their edits replay the repair). When the op to move runs with its W as one whole backward
/// (ir/overlap.h), which moves only as a pair, it is split first (one more edit, listed; timed as
/// before while its I and W stay next to each other). Cost: each move tries up to
/// two candidates per stuck device on a copy of the dry run, O(ops) each, plus the move's own cost
/// in the editor: meant for hand-edited orders, not for a million ops.
///
/// Then the search of edit/fewest_moves.h, on the order as it was, looks for fewer moves than the
/// greedy made, within a budget of cycle checks that shrinks as the order grows: when it finds
/// some, the editor gets those instead (its moves put back in a topological order, each right
/// after the op it follows there); when it completes without, the greedy's count is the fewest.
/// `search`, when given, says which.
std::vector<RepairMove> repair(ScheduleEditor& editor, RepairSearch* search = nullptr);

/// "2 move(s), the fewest (searched)", "1 move(s), the fewest (searched; the greedy made 2)",
/// "5 move(s), not proven the fewest (the search's budget ran out)" or "0 move(s): the order
/// runs": what the CLI and the window say of a repair of `moves` moves.
std::string describeRepair(std::size_t moves, const RepairSearch& search);

} // namespace stagecraft
