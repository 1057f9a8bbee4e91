#include "project/layer_split.h"

namespace stagecraft {

std::vector<int> splitLayers(int layers, int stages) {
    if (stages <= 0 || layers <= 0) return {};
    if (layers % stages == 0) return std::vector<int>(std::size_t(stages), layers / stages);
    if (stages >= 2 && (layers + 2) % stages == 0 && (layers + 2) / stages >= 2) {
        std::vector<int> split(std::size_t(stages), (layers + 2) / stages);
        split.front() -= 1;
        split.back() -= 1;
        return split;
    }
    return {};
}

std::vector<double> stageLayerBounds(int layers, int stages) {
    std::vector<double> bounds{0.0};
    if (stages <= 0) return bounds;
    const std::vector<int> split = splitLayers(layers, stages);
    for (int s = 0; s < stages; ++s)
        bounds.push_back(split.empty() ? double(layers) * (s + 1) / stages
                                       : bounds.back() + split[std::size_t(s)]);
    return bounds;
}

std::string layerSplitMessage(int layers, int stages, std::string_view schedule) {
    // The nearest layer counts that split, below and above, so the message says what to set.
    int below = layers - 1, above = layers + 1;
    while (below > 0 && splitLayers(below, stages).empty()) --below;
    while (splitLayers(above, stages).empty()) ++above;
    std::string message = "model.layers = " + std::to_string(layers) + ": " + std::string(schedule) +
                          " has " + std::to_string(stages) +
                          " stages per pipe and needs layers % stages == 0, or (layers + 2) % stages == 0 "
                          "with one layer fewer on the first and last stage (";
    if (below > 0) message += std::to_string(below) + " or ";
    message += std::to_string(above) + " layers would split)";
    return message;
}

} // namespace stagecraft
