// Fuzz harness of the torch compute-only CSV reader, under every overlap policy. A file that
// reads must also survive being written and read again unchanged, but for its REDUCE_GRAD cells:
// they are read as gradient syncs, which the compute-only writer leaves out.
#include "error.h"
#include "fuzz_entry.h"
#include "io/torch_csv.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

STAGECRAFT_FUZZ_TARGET(torch_csv) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto policy : {stagecraft::OverlapPolicy::Refuse, stagecraft::OverlapPolicy::Serialize,
                              stagecraft::OverlapPolicy::Keep}) {
        stagecraft::TorchCsvOptions options;
        options.overlap = policy;
        try {
            stagecraft::Schedule schedule = stagecraft::parseTorchCsv(text, "fuzz.csv", options);
            const std::string written = stagecraft::scheduleToTorchCsv(schedule);
            for (auto& ops : schedule.order)
                std::erase_if(
                    ops, [](const stagecraft::Op& op) { return op.kind == stagecraft::OpKind::GradSync; });
            if (!(stagecraft::parseTorchCsv(written, "fuzz.csv", options) == schedule)) std::abort();
        } catch (const stagecraft::Error&) {
        }
    }
}
