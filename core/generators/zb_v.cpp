// ZB-V, the zero-bubble paper's V-shaped schedule (handcrafted rule of its reference code).
// Device r holds chunk 0 = stage r (down the V) and chunk 1 = stage 2p-1-r (back up); a
// micro-batch starts and ends on device 0. Micro-batches are padded to n = max(2p-1, m) so the
// steady F-B-W rhythm is fully formed, and the padding ops are dropped afterwards.
#include "generators/generators.h"

#include <algorithm>

namespace stagecraft::gen {

void checkZbV(const ScheduleParams&) {}

Schedule zbV(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches;
    Schedule s = makeSchedule("zb-v", p, m, {vShapePlacement(p)}, true);
    const int n = std::max(2 * p - 1, m);
    for (int r = 0; r < p; ++r) {
        reserveOrder(s, r, 6 * std::size_t(m));
        const int stage[2] = {r, 2 * p - 1 - r};
        int f[2] = {0, 0}, b[2] = {0, 0}, w[2] = {0, 0};
        auto emit = [&](OpKind kind, int chunk, int& counter) {
            const int mb = counter++;
            if (mb < m) pushOp(s, r, kind, 0, stage[chunk], mb);
        };
        auto F = [&](int c) { emit(OpKind::F, c, f[c]); };
        auto B = [&](int c) { emit(OpKind::B, c, b[c]); };
        auto W = [&](int c) { emit(OpKind::W, c, w[c]); };

        for (int i = 0; i < 2 * (p - r) - 1; ++i) F(0);
        for (int i = 0; i < r; ++i) F(1), F(0);
        for (int i = 0; i < p - r; ++i) F(1), B(1), W(1);
        while (f[1] < f[0] || f[0] < n) {
            if (f[0] < n) F(0);
            B(0), W(0), F(1), B(1), W(1);
        }
        for (int i = 0; i < r; ++i) B(0), B(1);
        for (int i = 0; i < p - r; ++i) B(0), W(0);
        while (w[1] < n) W(1);
        while (w[0] < n) W(0);
    }
    return s;
}

} // namespace stagecraft::gen
