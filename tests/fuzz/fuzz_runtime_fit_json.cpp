// parseRuntimeFitJson on arbitrary bytes: it either throws stagecraft::Error or returns a fit that
// the writer turns into text that reads back to the same fit.
#include "error.h"
#include "project/runtime_fit_file.h"
#include "fuzz_entry.h"

#include <cstdlib>
#include <string_view>

STAGECRAFT_FUZZ_TARGET(runtime_fit_json) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const stagecraft::RuntimeFitRecord fit = stagecraft::parseRuntimeFitJson(text, "fuzz");
        const stagecraft::RuntimeFitRecord again =
            stagecraft::parseRuntimeFitJson(stagecraft::runtimeFitToJson(fit), "fuzz");
        if (!(again == fit)) std::abort(); // the writer and the reader disagree
    } catch (const stagecraft::Error&) {
    }
}
