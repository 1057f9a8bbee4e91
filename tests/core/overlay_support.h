#pragma once
// The quantity the calibration tests bound, kept as it was when they were written.

#include "sim/overlay.h"

namespace stagecraft::test {

/// The run against the prediction, measured / predicted - 1 (0 for no prediction): what the
/// overlay's makespan error read before it became the prediction's against the run. The tests'
/// bounds were set on it, so they keep reading it and stay exactly as strict.
inline double runAgainstPrediction(const OverlayReport& r) {
    return r.makespanPredicted > 0 ? r.makespanMeasured / r.makespanPredicted - 1 : 0.0;
}

} // namespace stagecraft::test
