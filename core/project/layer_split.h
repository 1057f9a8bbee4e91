#pragma once
// How the model's layers are cut into a schedule's stages: one rule, one message, used by the
// evaluation's fit check and the analytic cost model alike.

#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

/// Layers of each of `stages` stages: layers / stages each when it divides; when (layers + 2)
/// divides, the first and the last stage get one layer fewer (the zero-bubble paper's models).
/// Empty when neither holds.
std::vector<int> splitLayers(int layers, int stages);

/// Where each of `stages` stages starts and ends in the model's layers: stages + 1 ascending
/// bounds from 0 to `layers`, stage s holding [bounds[s], bounds[s + 1]). The split of
/// splitLayers; when the layers do not split, layers / stages each (fractional), the share the
/// manual cost model and the memory model give a schedule file of any stage count.
std::vector<double> stageLayerBounds(int layers, int stages);

/// The message when `layers` do not split into `stages` stages of `schedule` ("model.layers = 25:
/// zb-v has 8 stages and needs ..."), naming what would fit.
std::string layerSplitMessage(int layers, int stages, std::string_view schedule);

} // namespace stagecraft
