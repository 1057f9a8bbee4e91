// Fuzz harness of the torch compute-only CSV reader, under both overlap policies. A file that
// reads must also survive being written and read again unchanged.
#include "error.h"
#include "fuzz_entry.h"
#include "io/torch_csv.h"

#include <cstdlib>
#include <string_view>

STAGECRAFT_FUZZ_TARGET(torch_csv) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto policy : {stagecraft::OverlapPolicy::Refuse, stagecraft::OverlapPolicy::Serialize}) {
        stagecraft::TorchCsvOptions options;
        options.overlap = policy;
        try {
            const stagecraft::Schedule schedule = stagecraft::parseTorchCsv(text, "fuzz.csv", options);
            const std::string written = stagecraft::scheduleToTorchCsv(schedule);
            if (!(stagecraft::parseTorchCsv(written, "fuzz.csv", options) == schedule)) std::abort();
        } catch (const stagecraft::Error&) {
        }
    }
}
