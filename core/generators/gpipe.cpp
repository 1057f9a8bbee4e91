// GPipe (fill-drain): every forward, then every backward in ascending micro-batch order (the
// order of Chimera's and Fast-LLM's code; torch's looped BFS runs the backward descending,
// which has the same makespan under uniform costs).
#include "generators/generators.h"

namespace stagecraft::gen {

void checkGpipe(const ScheduleParams&) {}

Schedule gpipe(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches;
    Schedule s = makeSchedule("gpipe", p, m, {loopedPlacement(p, p)}, false);
    for (int r = 0; r < p; ++r) {
        reserveOrder(s, r, 2 * std::size_t(m));
        for (int j = 0; j < m; ++j) pushOp(s, r, OpKind::F, 0, r, j);
        for (int j = 0; j < m; ++j) pushOp(s, r, OpKind::B, 0, r, j);
    }
    return s;
}

} // namespace stagecraft::gen
