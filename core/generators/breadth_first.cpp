// Breadth-first (looped BFS, Lamy-Poirier 2023): device r holds the looped stages c*p + r and runs
// all micro-batches of one chunk before the next, forwards over chunks 0..v-1 and backwards over
// v-1..0, micro-batches ascending (Fast-LLM's order). With FSDP each chunk's weights are gathered
// once per pass and its gradients reduced as soon as its last backward is done.
#include "generators/generators.h"

namespace stagecraft::gen {

void checkBreadthFirst(const ScheduleParams&) {}

Schedule breadthFirst(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches, v = params.chunks;
    Schedule s = makeSchedule("breadth-first", p, m, {loopedPlacement(p, p * v)}, false);
    for (int r = 0; r < p; ++r) {
        reserveOrder(s, r, 2 * std::size_t(m) * v);
        for (int c = 0; c < v; ++c)
            for (int j = 0; j < m; ++j) pushOp(s, r, OpKind::F, 0, c * p + r, j);
        for (int c = v - 1; c >= 0; --c)
            for (int j = 0; j < m; ++j) pushOp(s, r, OpKind::B, 0, c * p + r, j);
    }
    return s;
}

} // namespace stagecraft::gen
