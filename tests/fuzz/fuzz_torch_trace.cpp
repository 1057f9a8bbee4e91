// Fuzz harness of the torch profiler / _dump_chrometrace reader and of the assembly of its ranks
// into one measured run (the paths every foreign trace takes).
#include "error.h"
#include "fuzz_entry.h"
#include "io/measured_run.h"
#include "io/torch_trace.h"

#include <string_view>

STAGECRAFT_FUZZ_TARGET(torch_trace) {
    using namespace stagecraft;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        std::vector<RankTrace> ranks = parseTorchTrace(text, "fuzz.json");
        MeasuredRunOptions options;
        (void)assembleMeasuredRun(ranks, options);
        options.pick = IterationPick::Median;
        (void)assembleMeasuredRun(std::move(ranks), options);
    } catch (const Error&) {
    }
}
