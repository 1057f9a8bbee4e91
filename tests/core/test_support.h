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

/// Calls `visit(info, params)` for every generator and every (p, m, v) in 1..maxP, 1..maxM,
/// 1..maxV (v only for generators that take chunks) that the generator accepts.
template <typename Visit>
void forEachAcceptedParams(int maxP, int maxM, int maxV, Visit&& visit) {
    for (const GeneratorInfo& info : generators()) {
        const int maxChunks = takesChunks(info) ? maxV : 1;
        for (int p = 1; p <= maxP; ++p)
            for (int m = 1; m <= maxM; ++m)
                for (int v = 1; v <= maxChunks; ++v) {
                    const ScheduleParams params{p, m, v};
                    if (!constraintViolation(info, params)) visit(info, params);
                }
    }
}

/// Runs `parse` and sums up how it refused its input: "id line:column | message" for a
/// ParseError, "id [field] | message" for a ValidationError, "id | message" for another Error,
/// "accepted" when nothing was thrown.
template <typename Parse>
std::string errorSummary(Parse&& parse) {
    try {
        parse();
    } catch (const ParseError& e) {
        return e.id() + " " + std::to_string(e.line()) + ":" + std::to_string(e.column()) + " | " +
               e.message();
    } catch (const ValidationError& e) {
        return e.id() + " [" + e.field() + "] | " + e.message();
    } catch (const Error& e) {
        return e.id() + " | " + e.message();
    }
    return "accepted";
}

} // namespace stagecraft::test
