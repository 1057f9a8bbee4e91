#pragma once
// Helpers several core test files share.

#include "error.h"
#include "generators/registry.h"

#include <algorithm>
#include <string>

namespace stagecraft::test {

/// Whether a generator takes the "chunks" parameter (v), so sweeps vary v only for those.
inline bool takesChunks(const GeneratorInfo& info) {
    return std::any_of(info.params.begin(), info.params.end(),
                       [](const ParamSpec& s) { return s.name == "chunks"; });
}

/// Runs `parse` and sums up how it refused its input: "id line:column | message" for a
/// ParseError, "id [field] | message" for a ValidationError, "accepted" when nothing was thrown.
template <typename Parse>
std::string errorSummary(Parse&& parse) {
    try {
        parse();
    } catch (const ParseError& e) {
        return e.id() + " " + std::to_string(e.line()) + ":" + std::to_string(e.column()) + " | " +
               e.message();
    } catch (const ValidationError& e) {
        return e.id() + " [" + e.field() + "] | " + e.message();
    }
    return "accepted";
}

} // namespace stagecraft::test
