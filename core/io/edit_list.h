#pragma once
// The edit list file: the base a hand-designed schedule starts from and the edits, in order, that
// turn it into the schedule (docs/editing.md). Saved by `stagecraft-cli edit --save-edits` (and
// later the window), replayed by `stagecraft-cli edit --edits FILE`, so a figure can say exactly
// how its schedule was derived:
//   {"stagecraft_edits": 1,
//    "base": {"schedule": "1f1b", "params": {"pp": 4, "microbatches": 8}}   (or {"file": "a.csv"})
//    "edits": ["split all", "move 1W7 after 1W6", {"edit": "shift", "op": "2W3", "by": 2}]}

#include "edit/edit.h"
#include "generators/schedule_params.h"
#include "ir/schedule.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

inline constexpr int kEditListVersion = 1;

/// Where the edits start: a registered schedule with its parameters, or a schedule file (a path
/// relative to the edit list's folder, or absolute).
struct EditBase {
    std::string schedule;  ///< registry name; empty when `file` is given
    ScheduleParams params; ///< the parameters the schedule's generator reads
    std::string file;      ///< a schedule file (.csv, .json); empty when `schedule` is given
};

/// An edit list as read: the base, and each edit as the file holds it (the JSON of a text form or of
/// an object). The edits are read against the base schedule (readListEdits), since how an op is
/// named depends on it: with sequence slices "1F3.1" names a slice.
struct EditList {
    EditBase base;
    std::vector<std::string> items; ///< edits[i] as JSON text
};

/// The list's edits, read for a base of `slices` sequence slices (Schedule::sequenceSlices), with
/// each edit's text form (as written in the file for a text edit, formatEdit's for an object).
struct ListedEdits {
    std::vector<Edit> edits;
    std::vector<std::string> texts;
};

/// The file's JSON; `texts` are the edits' text forms (formatEdit, as they were applied).
std::string editListToJson(const EditBase& base, const std::vector<std::string>& texts);

/// Reads an edit list's base and the shape of its edits. Throws ParseError "edit.list" for
/// malformed JSON (line, column) and ValidationError "edit.list" naming the field ("base.params.pp"),
/// the value and the rule.
EditList parseEditList(std::string_view text, const std::string& source);

/// Reads the list's edits for a base of `slices` sequence slices. Throws ValidationError
/// "edit.json" naming the field ("edits[3].op"), the value and the rule.
ListedEdits readListEdits(const EditList& list, int slices);

/// The base schedule: generated (checkParams' rules apply) or read from its file, resolved
/// against `folder` (the edit list's).
Schedule loadEditBase(const EditBase& base, const std::filesystem::path& folder);

} // namespace stagecraft
