// Fuzz harness of the Nsight Systems JSON export reader and the assembly of its ranks.
#include "error.h"
#include "fuzz_entry.h"
#include "io/measured_run.h"
#include "io/nsys_trace.h"

#include <string_view>

STAGECRAFT_FUZZ_TARGET(nsys_json) {
    using namespace stagecraft;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        std::vector<RankTrace> ranks = parseNsysJson(text, "fuzz.json");
        MeasuredRunOptions options;
        options.placement = size % 2 ? ChunkPlacement::V : ChunkPlacement::Loop;
        (void)assembleMeasuredRun(std::move(ranks), options);
    } catch (const Error&) {
    }
}
