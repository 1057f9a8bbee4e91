// Fuzz harness of the Chrome trace reader. Whatever it accepts must write back and read back to
// the same timeline (a mismatch is a bug and escapes as std::logic_error).
#include "error.h"
#include "fuzz_entry.h"
#include "io/chrome_trace.h"

#include <stdexcept>
#include <string_view>

STAGECRAFT_FUZZ_TARGET(chrome_trace) {
    try {
        const std::string_view text(reinterpret_cast<const char*>(data), size);
        const stagecraft::Timeline timeline = stagecraft::parseChromeTrace(text, "fuzz");
        const stagecraft::Timeline again =
            stagecraft::parseChromeTrace(stagecraft::timelineToChromeTrace(timeline), "fuzz-again");
        if (!(again == timeline))
            throw std::logic_error("chrome trace: read -> write -> read changed the timeline");
    } catch (const stagecraft::Error&) {
    }
}
