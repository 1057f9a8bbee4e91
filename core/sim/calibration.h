#pragma once
// Calibration: the manual costs (costs.mode = manual, costs per range of the model's layers, the
// transfer time) that make the cost model reproduce a measured timeline: the median, per kind and
// stage, of the measured op durations, given to the layers each measured stage held, and the
// median delay of a cross-device dependency that was waited for. docs/overlay.md gives the rules.

#include "project/layer_costs.h"
#include "project/project.h"
#include "sim/timeline.h"

#include <cstddef>
#include <string>

namespace stagecraft {

struct CalibrationOptions {
    /// B's share of a backward the trace timed whole (no I/W split), in (0, 1): what a schedule
    /// that splits the backward is predicted with. Unused when the trace split it.
    double inputShare = kDefaultInputShare;
    /// The run sent from the thread that computes (torch's runtime on CPU with gloo: a SEND
    /// action blocks the rank until the data left), so each op's measured send is added to its
    /// duration, the device time the op really took. With a GPU trace the sends run on their own
    /// stream and this is false.
    bool sendsOccupyDevice = false;
    /// Also fit the runtime model to a torch profiler run (eval/calibration.h): the calibrated
    /// project then predicts every schedule as torch runs it. False: the list scheduler's costs only.
    bool runtimeModel = true;
};

struct CostFit {
    /// Mode manual. `layers`: one range per measured stage, the layers splitLayers gives that
    /// stage of the run, with the stage's medians; `stages` cleared (they would hold for one pp
    /// only); `f/b/w`: the mean per full stage of the measured pipeline (captions, `fb`'s ratio);
    /// `comm`; the rest of `base` kept.
    CostsConfig costs;
    std::size_t samples = 0;     ///< measured compute ops used
    std::size_t commSamples = 0; ///< cross-device dependencies whose delay set `comm`
    int stages = 0;              ///< stages per pipe of the measured run
    bool splitMeasured = false;  ///< the trace timed B (I) and W apart
    /// What was not measured and the rule that filled it in, in words ("" when nothing was
    /// missing): a backward timed whole, split by `CalibrationOptions::inputShare`.
    std::string rule;
    /// A sequence-sliced run: what its slices cost relative to one another, in words
    /// (`costs.sliceCosts`); "" for a run without slices.
    std::string sliceRule;
};

/// Fits manual costs to `measured` for a model of `project.model.layers` layers, starting from
/// `project.costs`. Each measured stage's median F, B, W (over pipes and micro-batches) become the
/// costs of the layers it held, so every schedule (any placement, pp or chunk count that splits the
/// layers) is priced from the same measurement. A backward timed whole is split by
/// `options.inputShare` (splitWholeBackward) and `rule` says so. A sequence-sliced run's op of a
/// micro-batch costs the sum over its slices; each slice's share of all measured compute time,
/// over the mean slice's, becomes `costs.sliceCosts`. `comm` is the median, over
/// cross-device dependencies (F to the next stage's F, B to the previous stage's B) whose
/// consumer's device was idle when the producer ended, of the consumer's start minus the
/// producer's end: the time a transfer adds when nothing hides it. Throws ValidationError
/// "calibrate.trace" when some stage has no timed F or no B, "project.layers" (model.layers) when
/// the layers do not split into the measured stages, "calibrate.options" when inputShare is not in
/// (0, 1).
CostFit fitCosts(const Timeline& measured, const Project& project, const CalibrationOptions& options = {});

} // namespace stagecraft
