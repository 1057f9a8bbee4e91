// Fuzz harness of the Stagecraft schedule JSON reader. A file that reads must also survive being
// written and read again unchanged.
#include "error.h"
#include "fuzz_entry.h"
#include "io/schedule_json.h"

#include <cstdlib>
#include <string_view>

STAGECRAFT_FUZZ_TARGET(schedule_json) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const stagecraft::Schedule schedule = stagecraft::parseScheduleJson(text, "fuzz.json");
        if (!(stagecraft::parseScheduleJson(stagecraft::scheduleToJson(schedule), "fuzz.json") == schedule))
            std::abort();
    } catch (const stagecraft::Error&) {
    }
}
