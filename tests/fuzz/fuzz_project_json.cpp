// parseProject on arbitrary bytes: it either throws stagecraft::Error or returns a project that
// the writer turns into text that parses back to the same project. The validator must also run
// on anything the reader accepts.
#include "error.h"
#include "fuzz_entry.h"
#include "project/project_json.h"
#include "project/project_validate.h"

#include <cstdlib>
#include <string_view>

STAGECRAFT_FUZZ_TARGET(project_json) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const stagecraft::Project project = stagecraft::parseProject(text, "fuzz");
        (void)stagecraft::findProjectProblems(project);
        const stagecraft::Project again =
            stagecraft::parseProject(stagecraft::projectToJson(project), "fuzz");
        if (!(again == project)) std::abort(); // the writer and the reader disagree
    } catch (const stagecraft::Error&) {
    }
}
