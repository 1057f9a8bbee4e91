#pragma once
// One configuration of a search, evaluated: its schedule generated for the configuration's
// project and predicted by the analytic cost and memory models (core/eval predict()), with the
// weight all-gathers of fully sharded data parallelism (ZeRO-3) replayed on each device's
// communication lane over the predicted timeline.

#include "search/search_space.h"

#include <string>

namespace stagecraft {

struct ConfigResult {
    SearchConfig config;
    bool evaluated = false; ///< false: refused (see `refusal`)
    std::string refusalId;  ///< core's error id when refused
    std::string refusal;    ///< its message
    double iterationUs = 0; ///< the predicted iteration, ZeRO-3 gather stalls included
    double samplesPerSecond = 0;
    double tokensPerSecond = 0;
    double tflopsPerGpu = 0;
    double mfu = 0;             ///< model FLOPs utilisation, tflopsPerGpu / peak
    double peakMemoryBytes = 0; ///< the worst device's peak, ZeRO-3 gather buffers included
    double limitBytes = 0;      ///< memory.limit_gib (or the GPU's memory when 0)
    bool fits = false;          ///< evaluated and peakMemoryBytes <= limitBytes
    double bubbleRatio = 0;     ///< idle share of the pipeline devices (before gather stalls)
    double gatherStallUs = 0;   ///< how much the ZeRO-3 all-gathers lengthen the iteration
    double gradSyncUs = 0;      ///< one stage's gradient collective (all-reduce or reduce-scatter)
    /// The project's own prediction of this configuration (predict(), which leaves the ZeRO
    /// weight gathers out): its iteration and MFU, what the app shows once the configuration is
    /// opened. Equal to iterationUs and mfu when the gathers stall nothing.
    double predictedIterationUs = 0;
    double predictedMfu = 0;
};

/// Evaluate `config` for `project`. Never throws for a configuration the models refuse: it comes
/// back with `evaluated` false and the refusal.
ConfigResult evaluateConfig(const Project& project, const SearchConfig& config);

} // namespace stagecraft
