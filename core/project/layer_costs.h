#pragma once
// Costs per range of the model's layers (costs.layers): whether the ranges describe the whole
// model, what one stage of any schedule costs (the sum over the layers it holds, cut by
// layer_split's rule), and the stated rule that splits a backward timed whole into B and W.

#include "generators/registry.h"
#include "project/project.h"

#include <optional>
#include <string>
#include <vector>

namespace stagecraft {

/// B's share of a backward timed whole, unless calibrate --input-share says otherwise. Halves: a
/// Linear layer's input and weight gradients are GEMMs of one size, and in the zero-bubble
/// paper's transformer layer (Table 1) they differ only by the attention terms.
inline constexpr double kDefaultInputShare = 0.5;

/// The first rule `ranges` break as the costs of a model of `modelLayers` layers: they follow one
/// another from layer 0 to layer modelLayers - 1, without gaps or overlaps. nullopt when they
/// hold, or when there are none. The message names the entry, the value and the rule.
std::optional<std::string> layerCoverageProblem(const std::vector<LayerRangeCost>& ranges, int modelLayers);

/// F, B and W of each of `stages` stages of one pipe, in forward order: the sum over the layers
/// the stage holds (stageLayerBounds: the uneven first and last stage included, fractional layers
/// where they do not split), a range's cost spread evenly over its layers. Throws
/// ValidationError("project.field", "costs.layers") with layerCoverageProblem's message.
std::vector<StageCost> stageCostsFromLayers(const std::vector<LayerRangeCost>& ranges, int modelLayers,
                                            int stages);

/// Every range's `b`, a backward timed whole (w = 0), becomes b · inputShare of input gradient and
/// b · (1 - inputShare) of weight gradient: a non-split schedule still spends the whole, a split
/// one gets both parts > 0. `inputShare` must lie in (0, 1) (the caller checks it).
void splitWholeBackward(std::vector<LayerRangeCost>& ranges, double inputShare);

/// The rule splitWholeBackward applied, in words, for notes and reports: "the backward was timed
/// whole (no I/W split): B = 50% and W = 50% of it".
std::string wholeBackwardRule(double inputShare);

} // namespace stagecraft
