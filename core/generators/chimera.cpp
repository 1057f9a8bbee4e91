#include "error.h"
#include "generators/generators.h"

namespace stagecraft::gen {

void checkChimera(const ScheduleParams& params) {
    requireEvenPp("chimera", params);
    requireMicrobatchesMultipleOfPp("chimera", params);
}

Schedule chimera(const ScheduleParams&) { throw Error("generator.missing", "chimera is being written"); }

} // namespace stagecraft::gen
