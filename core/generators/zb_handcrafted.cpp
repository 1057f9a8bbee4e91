// ZB-H1 and ZB-H2, the zero-bubble paper's handcrafted schedules (its get_hand_schedule with
// warm-up factor c = 1 and c = 2): c(p-r-1) warm-up forwards, then for each micro-batch i a
// forward while any remain, its B, and the oldest pending W once i >= c*r; the remaining W
// drain at the end in micro-batch order. ZB-H1 keeps 1F1B's memory and cuts the bubble to
// (p-1)(T_F+T_B-T_W); ZB-H2 holds up to 2p-1 activations and has no bubble once the optimizer
// sync is removed.
#include "error.h"
#include "generators/generators.h"

#include <algorithm>

namespace stagecraft::gen {

namespace {

Schedule handcrafted(const char* name, const ScheduleParams& params, int factor) {
    const int p = params.pp, m = params.microbatches;
    Schedule s = makeSchedule(name, p, m, {loopedPlacement(p, p)}, true);
    for (int r = 0; r < p; ++r) {
        reserveOrder(s, r, 3 * std::size_t(m));
        const int warm = std::min(factor * (p - r - 1), m);
        int nextW = 0;
        for (int j = 0; j < warm; ++j) pushOp(s, r, OpKind::F, 0, r, j);
        for (int i = 0; i < m; ++i) {
            if (warm + i < m) pushOp(s, r, OpKind::F, 0, r, warm + i);
            pushOp(s, r, OpKind::B, 0, r, i);
            if (i >= factor * r) pushOp(s, r, OpKind::W, 0, r, nextW++);
        }
        while (nextW < m) pushOp(s, r, OpKind::W, 0, r, nextW++);
    }
    return s;
}

} // namespace

void checkZbH1(const ScheduleParams&) {}

Schedule zbH1(const ScheduleParams& params) {
    return handcrafted("zb-h1", params, 1);
}

void checkZbH2(const ScheduleParams& params) {
    if (params.microbatches < 2 * params.pp)
        throw ValidationError("generator.constraint", "parallel.microbatches",
                              "parallel.microbatches = " + std::to_string(params.microbatches) +
                                  ": zb-h2 needs microbatches >= 2 * pp = " + std::to_string(2 * params.pp) +
                                  " to fill its warm-up");
}

Schedule zbH2(const ScheduleParams& params) {
    return handcrafted("zb-h2", params, 2);
}

} // namespace stagecraft::gen
