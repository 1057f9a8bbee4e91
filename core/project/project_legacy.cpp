#include "project/project_legacy.h"

#include "error.h"
#include "project/layer_costs.h"
#include "project/layer_split.h"

#include <algorithm>

namespace stagecraft {

void convertChunkStages(Project& project, const std::vector<StageCostOverride>& chunkStages) {
    if (chunkStages.empty()) return;
    const int stages = int(chunkStages.size());
    const std::string howTo = "; write the costs per range of layers as costs.layers instead "
                              "(docs/project-format.md), or calibrate again";
    std::vector<const StageCostOverride*> byStage(chunkStages.size(), nullptr);
    for (std::size_t i = 0; i < chunkStages.size(); ++i) {
        const int stage = chunkStages[i].stage;
        if (stage < 0 || stage >= stages || byStage[std::size_t(stage)])
            throw ValidationError("project.field", "costs.chunk_stages",
                                  "costs.chunk_stages[" + std::to_string(i) +
                                      "].stage = " + std::to_string(stage) +
                                      ": format 1's per-stage costs convert only as calibrate wrote them, "
                                      "one entry for each stage 0.." +
                                      std::to_string(stages - 1) + howTo);
        byStage[std::size_t(stage)] = &chunkStages[i];
    }
    const std::vector<int> split = splitLayers(project.model.layers, stages);
    if (split.empty())
        throw ValidationError("project.field", "costs.chunk_stages",
                              "costs.chunk_stages gives " + std::to_string(stages) + " stages, and " +
                                  layerSplitMessage(project.model.layers, stages, "its schedule") + howTo);
    std::vector<LayerRangeCost> ranges;
    int first = 0;
    for (int s = 0; s < stages; ++s) {
        const StageCostOverride& o = *byStage[std::size_t(s)];
        ranges.push_back(LayerRangeCost{first, first + split[std::size_t(s)] - 1, o.f, o.b, o.w});
        first += split[std::size_t(s)];
    }
    std::string note = "converted from format 1's costs.chunk_stages (" + std::to_string(stages) + " stages)";
    const bool wholeBackward =
        std::all_of(ranges.begin(), ranges.end(), [](const LayerRangeCost& r) { return r.w == 0; });
    if (wholeBackward) {
        splitWholeBackward(ranges, kDefaultInputShare);
        note += "; " + wholeBackwardRule(kDefaultInputShare);
    }
    project.costs.layers = std::move(ranges);
    project.costs.stages.clear();
    project.costs.note = project.costs.note.empty() ? note : project.costs.note + "; " + note;
}

} // namespace stagecraft
