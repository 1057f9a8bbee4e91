// Seq1F1B-I (Sun et al., NAACL'25): interleaved 1F1B over sequence slices, the authors' code
// (thunlp/Seq1F1B, megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving). Device r holds the looped stages c p + r. The
// slice units u = j k + q go through Megatron's interleaved lookup as if they were micro-batches:
// step i of the forwards runs chunk (i mod p v) / p on its n-th unit, n = (i / p v) p + i mod p, so
// a chunk takes p units before the next chunk takes its turn. The backwards take the same lookup
// with the chunks reversed, and their n-th unit comes from the authors' two-level queue (sp_queue):
// micro-batches in order, within one the slices last first, so n gives micro-batch n / k, slice
// k - 1 - n mod k. Warm-up forwards: (v - 1) p + 2 (p - r - 1) + (k - 1), or everything when
// m == p; then one forward and one backward in turn, then the remaining backwards. Megatron's
// rule that p divides m holds (the code raises otherwise), and k divides p: a chunk's turn holds p
// units, and one that ends inside a micro-batch puts a slice's backward before its forward (the
// code deadlocks there; the property sweep finds it at p = 3, k = 2). The authors' timeline
// (picture/seq1f1b-I.png) draws a chunk's turn as p micro-batches, 2p units at k = 2, which is not
// what the code runs (docs/schedules.md).
#include "error.h"
#include "generators/generators.h"

#include <algorithm>
#include <string>

namespace stagecraft::gen {

void checkSeq1f1bInterleaved(const ScheduleParams& p) {
    checkSliceUnits(p, "seq1f1b-i"); // chunks >= 2 is the registry's range for this schedule
    // A chunk's turn in the lookup runs p units: it must hold whole micro-batches, or a turn ends
    // inside one and the backwards (a micro-batch's slices last first) reach a slice whose forward
    // waits for the chunk's next turn.
    if (p.pp % p.slices != 0)
        throw ValidationError("generator.constraint", "parallel.slices",
                              "parallel.slices = " + std::to_string(p.slices) +
                                  ": seq1f1b-i needs pp % slices == 0 (pp = " + std::to_string(p.pp) +
                                  "): a chunk's turn in the interleaved lookup runs pp slice units, which "
                                  "must be whole micro-batches");
    if (p.microbatches % p.pp != 0)
        throw ValidationError("generator.constraint", "parallel.microbatches",
                              "parallel.microbatches = " + std::to_string(p.microbatches) +
                                  ": seq1f1b-i needs microbatches % pp == 0 (pp = " + std::to_string(p.pp) +
                                  "; the authors' interleaved schedule raises otherwise)");
}

Schedule seq1f1bInterleaved(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches, v = params.chunks, k = params.slices;
    const int units = m * k, total = units * v;
    Schedule s = makeSchedule("seq1f1b-i", p, units, {loopedPlacement(p, p * v)}, false);
    s.sequenceSlices = k;
    const auto chunkOf = [&](int i) { return (i % (p * v)) / p; };
    const auto nthOf = [&](int i) { return (i / (p * v)) * p + i % p; };
    for (int r = 0; r < p; ++r) {
        reserveOrder(s, r, 2 * std::size_t(total));
        const int warm = m == p ? total : std::min((v - 1) * p + 2 * (p - r - 1) + (k - 1), total);
        const auto forward = [&](int i) { pushOp(s, r, OpKind::F, 0, chunkOf(i) * p + r, nthOf(i)); };
        const auto backward = [&](int i) {
            const int n = nthOf(i);
            pushOp(s, r, OpKind::B, 0, (v - 1 - chunkOf(i)) * p + r, (n / k) * k + (k - 1 - n % k));
        };
        warmupSteadyCooldown(total, warm, forward, backward);
    }
    return s;
}

} // namespace stagecraft::gen
