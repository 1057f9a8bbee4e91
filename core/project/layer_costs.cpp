#include "project/layer_costs.h"

#include "error.h"
#include "project/layer_split.h"

#include <algorithm>
#include <cstdio>

namespace stagecraft {

namespace {

std::string entry(std::size_t i) {
    return "costs.layers[" + std::to_string(i) + "]";
}

} // namespace

std::optional<std::string> layerCoverageProblem(const std::vector<LayerRangeCost>& ranges, int modelLayers) {
    if (ranges.empty()) return std::nullopt;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const int expected = i == 0 ? 0 : ranges[i - 1].last + 1;
        if (ranges[i].first == expected) continue;
        if (i == 0)
            return entry(0) + ".first = " + std::to_string(ranges[0].first) +
                   ": the ranges describe the whole model and start at layer 0";
        return entry(i) + ".first = " + std::to_string(ranges[i].first) + ": must be " +
               std::to_string(expected) + ", the layer after " + entry(i - 1) +
               ".last = " + std::to_string(ranges[i - 1].last) +
               " (ranges follow one another without gaps or overlaps)";
    }
    const LayerRangeCost& last = ranges.back();
    if (last.last != modelLayers - 1)
        return entry(ranges.size() - 1) + ".last = " + std::to_string(last.last) +
               ": the ranges end at the model's last layer, model.layers - 1 = " +
               std::to_string(modelLayers - 1) +
               "; costs per layer describe one model: calibrate again after changing model.layers, or give "
               "ranges for its layers";
    return std::nullopt;
}

std::vector<StageCost> stageCostsFromLayers(const std::vector<LayerRangeCost>& ranges, int modelLayers,
                                            int stages) {
    if (auto problem = layerCoverageProblem(ranges, modelLayers))
        throw ValidationError("project.field", "costs.layers", *problem);
    const std::vector<double> bounds = stageLayerBounds(modelLayers, stages);
    std::vector<StageCost> out(std::size_t(std::max(stages, 0)), StageCost{0, 0, 0});
    // Both lists are ordered along the layers: walk them together, adding each range's share of
    // every stage it overlaps.
    std::size_t r = 0;
    for (std::size_t s = 0; s < out.size(); ++s) {
        const double from = bounds[s], to = bounds[s + 1];
        while (r < ranges.size() && ranges[r].last + 1 <= from) ++r;
        for (std::size_t k = r; k < ranges.size() && ranges[k].first < to; ++k) {
            const LayerRangeCost& range = ranges[k];
            const double begin = range.first, end = range.last + 1.0;
            const double share = (std::min(to, end) - std::max(from, begin)) / (end - begin);
            if (share <= 0) continue;
            out[s].f += range.f * share;
            out[s].b += range.b * share;
            out[s].w += range.w * share;
        }
    }
    return out;
}

void splitWholeBackward(std::vector<LayerRangeCost>& ranges, double inputShare) {
    for (LayerRangeCost& range : ranges) {
        const double whole = range.b + range.w;
        range.b = whole * inputShare;
        range.w = whole - range.b;
    }
}

std::string wholeBackwardRule(double inputShare) {
    char text[128];
    std::snprintf(text, sizeof text,
                  "the backward was timed whole (no I/W split): B = %g%% and W = %g%% of it",
                  100 * inputShare, 100 * (1 - inputShare));
    return text;
}

} // namespace stagecraft
