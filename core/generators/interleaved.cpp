// Interleaved 1F1B (Megatron-LM "depth-first"): device r holds the looped stages c*p + r. Ops are
// numbered by a virtual micro-batch k that walks one round of micro-batches through one chunk
// before moving to the next chunk; forwards visit chunks 0..v-1, backwards v-1..0. The warm-up is
// 2(p-r-1) + (v-1)g forwards, g being the micro-batches per round, or everything when m == p
// (Megatron's all-warm-up branch, which is exactly the breadth-first order).
//
// Micro-batch counts that are not multiples of p follow torch.distributed.pipelining's
// ScheduleInterleaved1F1B: max(1, m / p) rounds of g = m / rounds micro-batches each, accepted when
// the rounds are equal (m % rounds == 0). When p divides m, g = p and the order is Megatron's;
// otherwise it is torch's order, op for op (tests/core/torch_files_test.cpp compares it with the
// files torch writes).
#include "error.h"
#include "generators/generators.h"

#include <algorithm>

namespace stagecraft::gen {

namespace {

int roundsOf(int p, int m) {
    return std::max(1, m / p);
}

} // namespace

void checkInterleaved(const ScheduleParams& params) {
    if (params.chunks < 2)
        throw ValidationError("generator.constraint", "parallel.chunks",
                              "parallel.chunks = " + std::to_string(params.chunks) +
                                  ": interleaved needs at least 2 chunks per device (with 1 chunk use 1f1b)");
    const int rounds = roundsOf(params.pp, params.microbatches);
    if (params.microbatches % rounds != 0)
        throw ValidationError("generator.constraint", "parallel.microbatches",
                              "parallel.microbatches = " + std::to_string(params.microbatches) +
                                  ": interleaved runs max(1, microbatches / pp) = " + std::to_string(rounds) +
                                  " rounds of equal size and needs microbatches % " + std::to_string(rounds) +
                                  " == 0 (pp = " + std::to_string(params.pp) +
                                  "; torch's Interleaved1F1B rule)");
}

Schedule interleaved(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches, v = params.chunks;
    const int group = m / roundsOf(p, m); // micro-batches per round: p when p divides m
    Schedule s = makeSchedule("interleaved", p, m, {loopedPlacement(p, p * v)}, false);
    const int total = m * v;
    auto forwardChunk = [&](int k) { return (k / group) % v; };
    auto microbatch = [&](int k) { return (k / (group * v)) * group + (k % group); };
    for (int r = 0; r < p; ++r) {
        reserveOrder(s, r, 2 * std::size_t(total));
        const int warm = m == p ? total : std::min((p - r - 1) * 2 + (v - 1) * group, total);
        auto forward = [&](int k) { pushOp(s, r, OpKind::F, 0, forwardChunk(k) * p + r, microbatch(k)); };
        auto backward = [&](int k) {
            pushOp(s, r, OpKind::B, 0, (v - 1 - forwardChunk(k)) * p + r, microbatch(k));
        };
        warmupSteadyCooldown(total, warm, forward, backward);
    }
    return s;
}

} // namespace stagecraft::gen
