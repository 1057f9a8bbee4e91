#include "error.h"
#include "generators/generators.h"

namespace stagecraft::gen {

void checkBitpipe(const ScheduleParams& params) {
    requireEvenPp("bitpipe", params);
    requireMicrobatchesMultipleOfPp("bitpipe", params);
}

Schedule bitpipe(const ScheduleParams&) { throw Error("generator.missing", "bitpipe is being written"); }

} // namespace stagecraft::gen
