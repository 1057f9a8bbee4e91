// 1F1B (PipeDream-Flush / DAPPLE, Megatron's non-interleaved schedule): device r runs
// min(p - r - 1, m) warm-up forwards, then alternates one forward and one backward, then drains
// the remaining backwards.
#include "generators/generators.h"

#include <algorithm>

namespace stagecraft::gen {

void check1f1b(const ScheduleParams&) {}

Schedule oneFOneB(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches;
    Schedule s = makeSchedule("1f1b", p, m, {loopedPlacement(p, p)}, false);
    for (int r = 0; r < p; ++r) {
        reserveOrder(s, r, 2 * std::size_t(m));
        const int warm = std::min(p - r - 1, m);
        for (int j = 0; j < warm; ++j) pushOp(s, r, OpKind::F, 0, r, j);
        for (int i = 0; i < m - warm; ++i) {
            pushOp(s, r, OpKind::F, 0, r, warm + i);
            pushOp(s, r, OpKind::B, 0, r, i);
        }
        for (int j = m - warm; j < m; ++j) pushOp(s, r, OpKind::B, 0, r, j);
    }
    return s;
}

} // namespace stagecraft::gen
