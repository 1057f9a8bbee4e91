// TeraPipe (Li et al., ICML'21): GPipe over token slices. Within one step every stage runs all
// forwards first, over the grid of micro-batches ("batch slices") and token slices, both
// ascending; then all backwards, both descending, so that a slice's backward comes after the
// later slices' backwards have returned their gradients to its keys and values. Units
// u = j k + q as in Seq1F1B: forwards u = 0 .. m k - 1, backwards u = m k - 1 .. 0 (the order of
// the authors' terapipe.py; docs/schedules.md).
#include "generators/generators.h"

namespace stagecraft::gen {

void checkTerapipe(const ScheduleParams& p) {
    checkSliceUnits(p, "terapipe");
}

Schedule terapipe(const ScheduleParams& params) {
    const int p = params.pp, units = params.microbatches * params.slices;
    Schedule s = makeSchedule("terapipe", p, units, {loopedPlacement(p, p)}, false);
    s.sequenceSlices = params.slices;
    for (int r = 0; r < p; ++r) {
        reserveOrder(s, r, 2 * std::size_t(units));
        for (int u = 0; u < units; ++u) pushOp(s, r, OpKind::F, 0, r, u);
        for (int u = units - 1; u >= 0; --u) pushOp(s, r, OpKind::B, 0, r, u);
    }
    return s;
}

} // namespace stagecraft::gen
