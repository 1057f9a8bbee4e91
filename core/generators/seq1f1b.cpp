// Seq1F1B (Sun et al., NAACL'25): 1F1B over sequence slices. Every micro-batch is cut into k
// slices along the sequence; a slice's forward needs the earlier slices' keys and values (its
// device runs them first), and a slice's backward returns gradients to the earlier slices' keys
// and values (the later slices' backwards run first). Units u = j k + q (micro-batch j, slice q)
// go through 1F1B with k - 1 more warm-up forwards on every device (w = min(p - r - 2 + k, m k);
// k = 1 is 1F1B's p - r - 1), forwards in unit order, backwards micro-batch by micro-batch with
// the slices descending. The rule of the ZB repository's seq1f1b.py, the same counts as the
// authors' schedules.py; its Figure 1 is the golden (docs/schedules.md).
#include "error.h"
#include "generators/generators.h"
#include "size_limits.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace stagecraft::gen {

void checkSliceUnits(const ScheduleParams& p, std::string_view schedule) {
    // Units go where micro-batches go: m x k of them must fit the micro-batch range.
    if (std::int64_t(p.microbatches) * p.slices > kMaxMicrobatches)
        throw ValidationError(
            "generator.range", "parallel.slices",
            "parallel.slices = " + std::to_string(p.slices) + ": " + std::string(schedule) +
                " runs microbatches x slices = " + std::to_string(std::int64_t(p.microbatches) * p.slices) +
                " slice units, more than the limit of " + std::to_string(kMaxMicrobatches));
}

void checkSeq1f1b(const ScheduleParams& p) {
    checkSliceUnits(p, "seq1f1b");
}

Schedule seq1f1b(const ScheduleParams& params) {
    const int p = params.pp, m = params.microbatches, k = params.slices;
    const int units = m * k;
    Schedule s = makeSchedule("seq1f1b", p, units, {loopedPlacement(p, p)}, false);
    s.sequenceSlices = k;
    // The i-th backward of a device: micro-batch i / k, slices from the last to the first.
    const auto backwardUnit = [k](int i) { return (i / k) * k + (k - 1 - i % k); };
    for (int r = 0; r < p; ++r) {
        reserveOrder(s, r, 2 * std::size_t(units));
        const int warm = std::clamp(p - r - 2 + k, 0, units);
        warmupSteadyCooldown(
            units, warm, [&](int u) { pushOp(s, r, OpKind::F, 0, r, u); },
            [&](int i) { pushOp(s, r, OpKind::B, 0, r, backwardUnit(i)); });
    }
    return s;
}

} // namespace stagecraft::gen
