// torch.distributed.pipelining's ScheduleInterleavedZeroBubble: interleaved 1F1B over v looped
// chunks per device with the backward split. Micro-batches go in rounds of m / max(1, m div p); a
// device runs (v-1)·round + (p-1-r) warm-up forwards (one per hop from the last device, where
// interleaved 1F1B has two), then pairs of one forward and one input-gradient backward, then the
// remaining backwards. The weight gradients follow their backwards first in, first out, held
// back by r on device r (the first r backwards keep their W for the end), which is what fills
// the bubbles of the cool-down. torch inserts idle steps where a dependency is not ready; those
// are timing, not order, and the simulator adds them by itself.
#include "error.h"
#include "generators/generators.h"

#include <algorithm>
#include <vector>

namespace stagecraft::gen {

namespace {

int rounds(const ScheduleParams& p) {
    return std::max(1, p.microbatches / p.pp);
}

} // namespace

void checkInterleavedZb(const ScheduleParams& params) {
    const int r = rounds(params);
    if (params.microbatches % r != 0)
        throw ValidationError("generator.constraint", "parallel.microbatches",
                              "parallel.microbatches = " + std::to_string(params.microbatches) +
                                  ": interleaved-zb runs the micro-batches in max(1, microbatches / pp) = " +
                                  std::to_string(r) + " equal rounds and needs microbatches % " +
                                  std::to_string(r) + " == 0 (torch's rule)");
}

Schedule interleavedZb(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches, v = params.chunks;
    const int perRound = m / rounds(params);
    Schedule s = makeSchedule("interleaved-zb", p, m, {loopedPlacement(p, p * v)}, true);
    for (int r = 0; r < p; ++r) {
        const int warmup = std::min((v - 1) * perRound + (p - 1 - r), m * v);
        const int steady = v * m - warmup;
        auto forwardStage = [&](int step) { return (step / perRound) % v * p + r; };
        auto backwardStage = [&](int step) { return (v - 1 - (step - warmup) / perRound % v) * p + r; };
        std::vector<int> f(std::size_t(v * p), 0), b(f), w(f);
        std::vector<int> backwardSteps; // step of each backward, in order: W follows them FIFO
        std::size_t weights = 0;
        auto push = [&](OpKind kind, int stage, std::vector<int>& counter) {
            pushOp(s, r, kind, 0, stage, counter[std::size_t(stage)]++);
        };
        auto weight = [&] { push(OpKind::W, backwardStage(backwardSteps[weights++]), w); };
        auto backward = [&](int step) {
            push(OpKind::B, backwardStage(step), b);
            backwardSteps.push_back(step);
            if (step - warmup >= r) weight();
        };
        reserveOrder(s, r, 3 * std::size_t(v) * std::size_t(m));
        for (int step = 0; step < warmup + steady + warmup; ++step) {
            if (step < warmup) {
                push(OpKind::F, forwardStage(step), f);
            } else if (step < warmup + steady) {
                push(OpKind::F, forwardStage(step), f);
                backward(step);
            } else {
                backward(step);
            }
        }
        while (weights < backwardSteps.size()) weight();
    }
    return s;
}

} // namespace stagecraft::gen
