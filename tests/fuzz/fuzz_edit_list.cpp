// parseEditList on arbitrary bytes: it either throws stagecraft::Error or returns a list whose
// file, written again, reads back to the same base and edits, and whose every edit prints in the
// text and JSON forms that read back to it. A list on a small registered schedule is then applied
// by the editor: each edit applies or throws stagecraft::Error and changes nothing, an order that
// runs passes the validator, each edit's inverse gives back the order before it, and repair makes
// a broken order run.
#include "edit/edit.h"
#include "edit/editor_costs.h"
#include "edit/repair.h"
#include "edit/schedule_editor.h"
#include "error.h"
#include "fuzz_entry.h"
#include "generators/registry.h"
#include "io/edit_list.h"
#include "validate/validator.h"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

namespace {

/// The list's edits on its base, when that is a small registered schedule (a few hundred ops, so
/// an input runs in milliseconds).
void applyToBase(const stagecraft::EditList& list) {
    using namespace stagecraft;
    const ScheduleParams& p = list.base.params;
    if (list.base.schedule.empty() || p.pp > 8 || p.microbatches > 16 || p.chunks > 4 || p.slices > 8) return;
    Schedule base;
    try {
        base = generateSchedule(list.base.schedule, p);
        ScheduleEditor editor(base, unitEditorCostSetup(base).costs);
        for (const Edit& edit : readListEdits(list, base.sequenceSlices).edits) {
            const Schedule before = editor.schedule();
            EditOutcome out;
            try {
                out = editor.apply(edit);
            } catch (const Error&) {
                if (!(editor.schedule() == before)) std::abort(); // a refused edit changed the order
                continue;
            }
            if (editor.runs() && !findProblems(editor.schedule()).empty()) std::abort();
            ScheduleEditor undone = editor;
            undone.applyAll(out.inverse);
            if (!(undone.schedule() == before)) std::abort(); // the inverse is not exact
        }
        repair(editor);
        if (!editor.runs()) std::abort();
    } catch (const Error&) { // the base refused (parameters out of a generator's rules), or the editor
    }
}

} // namespace

STAGECRAFT_FUZZ_TARGET(edit_list) {
    using namespace stagecraft;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    EditList list;
    try {
        list = parseEditList(text, "fuzz");
    } catch (const Error&) {
        return;
    }
    // The edits as a schedule without slices and as one of the base's slices (or two) read them.
    const int sliced = list.base.params.slices > 1 ? list.base.params.slices : 2;
    for (const int slices : {1, sliced}) {
        ListedEdits listed;
        try {
            listed = readListEdits(list, slices);
        } catch (const Error&) {
            continue;
        }
        const EditList again = parseEditList(editListToJson(list.base, listed.texts), "fuzz");
        if (readListEdits(again, slices).edits != listed.edits || again.base.schedule != list.base.schedule ||
            again.base.file != list.base.file || again.base.params.pp != list.base.params.pp ||
            again.base.params.microbatches != list.base.params.microbatches ||
            again.base.params.chunks != list.base.params.chunks ||
            again.base.params.slices != list.base.params.slices)
            std::abort(); // the writer and the reader disagree
        for (const Edit& edit : listed.edits)
            for (const bool split : {false, true}) {
                if (!(parseEdit(formatEdit(edit, split, slices), "fuzz", slices) == edit)) std::abort();
                if (!(editFromJson(editToJson(edit, split, slices), "fuzz", slices) == edit)) std::abort();
            }
    }
    applyToBase(list);
}
