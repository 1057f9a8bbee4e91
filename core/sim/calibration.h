#pragma once
// Calibration: the manual costs (costs.mode = manual, per-stage F/B/W overrides, the transfer
// time) that make the cost model reproduce a measured timeline: the median, per kind and stage,
// of the measured op durations, and the median delay of a cross-device dependency that was waited
// for. docs/overlay.md gives the rules.

#include "project/project.h"
#include "sim/timeline.h"

#include <cstddef>

namespace stagecraft {

struct CostFit {
    /// Mode manual; one `chunk_stages` override per stage of the schedule (the medians), one
    /// `stages` override per full stage (their sums, what an edit of the pipeline falls back on), comm.
    CostsConfig costs;
    std::size_t samples = 0;     ///< measured compute ops used
    std::size_t commSamples = 0; ///< cross-device dependencies whose delay set `comm`
};

/// Fits manual costs to `measured` (a timeline of `devices` pipeline devices). Each stage of the
/// schedule gets the median of its measured F (B, W) as a `costs.chunk_stages` override; a full
/// stage's `costs.stages` override is the sum over the chunk stages its layers hold. A whole backward (a
/// schedule that does not split it) is fitted as b with w = 0. `comm` is the median, over cross-device
/// dependencies (F to the next stage's F, B to the previous stage's B) whose consumer's device was
/// idle when the producer ended, of the consumer's start minus the producer's end: the time a
/// transfer adds when nothing hides it. Other project fields are kept. Throws
/// ValidationError("calibrate.trace") when the timeline has no compute op of some stage.
///
/// `sendsOccupyDevice`: the run sent from the thread that computes (torch's runtime on CPU with
/// gloo: a SEND action blocks the rank until the data left), so each op's measured send is added
/// to its duration, the device time the op really took. With a GPU trace the sends run on their
/// own stream and this is false.
CostFit fitCosts(const Timeline& measured, const CostsConfig& base, bool sendsOccupyDevice = false);

} // namespace stagecraft
