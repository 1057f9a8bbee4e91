// Fuzz harness of the torch compute+comms CSV reader. A file that reads must survive the replay
// under both semantics, and write and read back to the same programs.
#include "error.h"
#include "fuzz_entry.h"
#include "io/torch_comms_csv.h"
#include "passes/replay.h"

#include <cstdlib>
#include <string_view>

STAGECRAFT_FUZZ_TARGET(torch_comms_csv) {
    using namespace stagecraft;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    TorchCommsCsvOptions options;
    options.overlap = OverlapPolicy::Serialize;
    try {
        const Lowered lowered = parseTorchCommsCsv(text, "fuzz.csv", options);
        for (const CommSemantics semantics : {CommSemantics::Nccl, CommSemantics::Mpi})
            (void)replay(lowered, {semantics, true});
        const std::string written = programsToTorchCommsCsv(lowered);
        if (!(parseTorchCommsCsv(written, "fuzz.csv", options).programs == lowered.programs)) std::abort();
    } catch (const Error&) {
    }
}
