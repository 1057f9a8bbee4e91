// parseEditList on arbitrary bytes: it either throws stagecraft::Error or returns a list whose
// file, written again, reads back to the same base and edits, and whose every edit prints in the
// text and JSON forms that read back to it.
#include "edit/edit.h"
#include "error.h"
#include "fuzz_entry.h"
#include "io/edit_list.h"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

STAGECRAFT_FUZZ_TARGET(edit_list) {
    using namespace stagecraft;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    EditList list;
    try {
        list = parseEditList(text, "fuzz");
    } catch (const Error&) {
        return;
    }
    const EditList again = parseEditList(editListToJson(list.base, list.texts), "fuzz");
    if (again.edits != list.edits || again.base.schedule != list.base.schedule ||
        again.base.file != list.base.file || again.base.params.pp != list.base.params.pp ||
        again.base.params.microbatches != list.base.params.microbatches ||
        again.base.params.chunks != list.base.params.chunks)
        std::abort(); // the writer and the reader disagree
    for (const Edit& edit : list.edits)
        for (const bool split : {false, true}) {
            if (!(parseEdit(formatEdit(edit, split)) == edit)) std::abort();
            if (!(editFromJson(editToJson(edit, split), "fuzz") == edit)) std::abort();
        }
}
