// Interleaved 1F1B (Megatron-LM "depth-first"): device r holds the looped stages c*p + r. Ops are
// numbered by a virtual micro-batch k that walks p micro-batches through one chunk before moving
// to the next chunk; forwards visit chunks 0..v-1, backwards v-1..0. The warm-up is
// 2(p-r-1) + (v-1)p forwards, or everything when m == p (Megatron's all-warm-up branch, which is
// exactly the breadth-first order).
#include "error.h"
#include "generators/generators.h"

#include <algorithm>

namespace stagecraft::gen {

void checkInterleaved(const ScheduleParams& params) {
    if (params.chunks < 2)
        throw ValidationError("generator.constraint", "parallel.chunks",
                              "parallel.chunks = " + std::to_string(params.chunks) +
                                  ": interleaved needs at least 2 chunks per device (with 1 chunk use 1f1b)");
    requireMicrobatchesMultipleOfPp("interleaved", params);
}

Schedule interleaved(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches, v = params.chunks;
    Schedule s = makeSchedule("interleaved", p, m, {loopedPlacement(p, p * v)}, false);
    const int total = m * v;
    auto forwardChunk = [&](int k) { return (k % (p * v)) / p; };
    auto microbatch = [&](int k) { return (k / (p * v)) * p + (k % p); };
    for (int r = 0; r < p; ++r) {
        s.order[r].reserve(2 * std::size_t(total));
        const int warm = m == p ? total : std::min((p - r - 1) * 2 + (v - 1) * p, total);
        auto forward = [&](int k) { pushOp(s, r, OpKind::F, 0, forwardChunk(k) * p + r, microbatch(k)); };
        auto backward = [&](int k) { pushOp(s, r, OpKind::B, 0, (v - 1 - forwardChunk(k)) * p + r, microbatch(k)); };
        for (int k = 0; k < warm; ++k) forward(k);
        for (int k = 0; k < total - warm; ++k) {
            forward(warm + k);
            backward(k);
        }
        for (int k = total - warm; k < total; ++k) backward(k);
    }
    return s;
}

} // namespace stagecraft::gen
