#pragma once
// One hand edit of a schedule's order, as a value: what the chart's drag, a keyboard move, an undo
// step, a CLI flag and a line of an edit list file all are. Ops are named by their one name
// (ir/op_name.h: "1W3" is the W of micro-batch 3 on stage 1), so an edit reads the same in a
// paper, a file and an error message. ScheduleEditor (edit/schedule_editor.h) applies them.
//
// The text form, one edit per line (docs/editing.md):
//   move 1W3 after 1F5    move 1W3 before 1F5    move 1W3 to 7   (index in its device's order)
//   shift 1W3 +2          shift 1W3 -1           (later / earlier by that many places)
//   swap 1W3 1F5          (two neighbours on one device trade places)
//   split 2B4             split all              (a whole backward becomes I then W)
//   merge 2B4             merge all              (an I and the W right after it become one backward)
//   pipe 5 to 1           (micro-batch 5 runs on pipe 1 of a two-pipe schedule: each of its ops
//                          goes to the device that pipe places its stage on, at its time there)
//   add 2SYNC after 2W7   add 2OPT to 30          (a gradient sync / optimizer step of a stage, placed
//                          like a move: its device is the one that holds the stage)
//   drop 2SYNC            (the stage's sync leaves the order: the iteration tail posts it right
//                          after the stage's last backward when the order is simulated)

#include "ir/op.h"
#include "ir/schedule.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

enum class EditKind : std::uint8_t { Move, Shift, Swap, Split, Merge, Pipe, Add, Drop };

/// Where a move (or an add) puts its op: at an index of the device's order (the index the op has
/// after the move), or right before / after another op of the same device.
enum class MoveAnchor : std::uint8_t { Index, Before, After };

struct Edit {
    EditKind kind = EditKind::Move;
    Op op;            ///< the op moved, shifted, swapped, split or merged (its chunk is ignored); for
                      ///< a pipe edit only its micro-batch counts
    bool all = false; ///< split / merge: every backward, not one op
    MoveAnchor anchor = MoveAnchor::Index;
    Op other;               ///< move before / after it; swap with it
    std::int64_t index = 0; ///< move to this index; shift by this many places (negative: earlier);
                            ///< the pipe a pipe edit puts the micro-batch on

    friend bool operator==(const Edit&, const Edit&) = default;
};

/// "move 1W3 after 1F5", the text form parseEdit reads back. `splitBackward` names B as I (the
/// schedule's own naming); parseEdit reads either. With `slices` > 1 (Schedule::sequenceSlices) an
/// op's unit is written as its micro-batch and slice: "move 1F3.1 after 1B2.0".
std::string formatEdit(const Edit& edit, bool splitBackward, int slices = 1);
/// formatEdit in `schedule`'s own naming (its backward form and sequence slices).
std::string formatEdit(const Edit& edit, const Schedule& schedule);
/// A list as formatEdit lines joined by "; " (reports, undo labels).
std::string formatEdits(const std::vector<Edit>& edits, bool splitBackward, int slices = 1);

/// Reads one edit in the text form (blanks around words ignored). Throws ParseError "edit.syntax"
/// naming `source`, the 1-based column of the word at fault, the word and the grammar.
/// `slices` is the schedule's sequence slices: with more than one, a compute op is named with its
/// slice ("2F3.1" is slice 1 of micro-batch 3) and a name without one is refused (it would name
/// every slice); with one, a slice is refused.
Edit parseEdit(std::string_view text, const std::string& source = "edit", int slices = 1);

/// The JSON form: {"edit": "move", "op": "1W3", "after": "1F5"} ("before", "to": index),
/// {"edit": "shift", "op": "1W3", "by": 2}, {"edit": "swap", "op": "1W3", "with": "1F5"},
/// {"edit": "split", "op": "2B4"}, {"edit": "split", "op": "all"}, {"edit": "pipe", "mb": 5, "to": 1},
/// {"edit": "add", "op": "2SYNC", "after": "2W7"} (like a move) or {"edit": "drop", "op": "2SYNC"}.
nlohmann::json editToJson(const Edit& edit, bool splitBackward, int slices = 1);
/// Reads the JSON form, or a string in the text form, op names read as parseEdit reads them for a
/// schedule of `slices` sequence slices. Throws ValidationError "edit.json" whose field is `path`
/// plus the key ("edits[3].op") naming the value and the rule.
Edit editFromJson(const nlohmann::json& json, const std::string& path, int slices = 1);

} // namespace stagecraft
