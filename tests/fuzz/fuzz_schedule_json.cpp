// Fuzz harness of the Stagecraft schedule JSON reader. A file that reads must also survive being
// written and read again unchanged, and the packed pass must read every text as the whole document
// does: the same schedule, or an error with the same id and message.
#include "error.h"
#include "fuzz_entry.h"
#include "io/schedule_json.h"

#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

namespace {

/// The schedule `pass` reads from `text`, or the error's "[id] message".
std::variant<stagecraft::Schedule, std::string> outcome(std::string_view text,
                                                        stagecraft::ScheduleJsonPass pass) {
    try {
        return stagecraft::parseScheduleJson(text, "fuzz.json", pass);
    } catch (const stagecraft::Error& e) {
        return std::string(e.what());
    }
}

} // namespace

STAGECRAFT_FUZZ_TARGET(schedule_json) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto packed = outcome(text, stagecraft::ScheduleJsonPass::Packed);
    if (!(packed == outcome(text, stagecraft::ScheduleJsonPass::Document))) std::abort();
    if (const auto* schedule = std::get_if<stagecraft::Schedule>(&packed))
        if (!(stagecraft::parseScheduleJson(stagecraft::scheduleToJson(*schedule), "fuzz.json") == *schedule))
            std::abort();
}
