#include "project/project.h"

#include "error.h"
#include "project/layer_split.h"

namespace stagecraft {

Project defaultProject() {
    Project p;
    p.name = "GPT 1.3B on 8 A100s";
    p.schedules = {"1f1b", "interleaved", "zb-h1"};
    p.model = ModelConfig{24, 2048, 16, 2048, 51200, 1, DType::BF16};
    p.cluster = ClusterConfig{"A100-80GB", 8, 1, 312, 80, 2400, 200, 5};
    p.parallel = ParallelConfig{{4, 8, 2}, 2, 1};
    p.memory = MemoryConfig{80, 0, Recompute::None};
    p.costs = CostsConfig{};
    return p;
}

ScheduleParams scheduleParams(const Project& project) {
    return project.parallel; // the ScheduleParams part
}

void checkLayersFit(const Project& project, const GeneratorInfo& info) {
    const ScheduleParams params = scheduleParams(project);
    const int layers = project.model.layers;
    const int pp = project.parallel.pp;
    if (info.name == "bitpipe" && (layers % pp != 0 || (layers / pp) % 2 != 0))
        throw ValidationError(
            "project.layers", "model.layers",
            "model.layers = " + std::to_string(layers) +
                ": bitpipe splits each device's layers into two half-stage chunks and needs "
                "layers % pp == 0 with layers / pp even (pp = " +
                std::to_string(pp) + ")");
    const int stages = info.stagesPerPipe(params);
    if (!splitLayers(layers, stages).empty()) return;
    throw ValidationError("project.layers", "model.layers", layerSplitMessage(layers, stages, info.name));
}

std::string_view dtypeName(DType dtype) {
    switch (dtype) {
    case DType::FP16:
        return "fp16";
    case DType::BF16:
        return "bf16";
    case DType::FP32:
        return "fp32";
    }
    return "?";
}

std::string_view recomputeName(Recompute value) {
    switch (value) {
    case Recompute::None:
        return "none";
    case Recompute::Selective:
        return "selective";
    case Recompute::Full:
        return "full";
    }
    return "?";
}

std::string_view costModeName(CostMode mode) {
    switch (mode) {
    case CostMode::Analytic:
        return "analytic";
    case CostMode::Manual:
        return "manual";
    case CostMode::Unit:
        return "unit";
    }
    return "?";
}

std::string_view optimizerSyncName(OptimizerSync value) {
    return value == OptimizerSync::PostValidation ? "post-validation" : "flush";
}

std::string_view timingName(Timing value) {
    return value == Timing::StagecraftRun ? "stagecraft-run" : "list-scheduler";
}

std::string_view attentionName(Attention value) {
    return value == Attention::Causal ? "causal" : "dense";
}

std::string_view sliceSplitName(SliceSplit value) {
    return value == SliceSplit::Balanced ? "balanced" : "uniform";
}

double dtypeBytes(DType dtype) {
    return dtype == DType::FP32 ? 4.0 : 2.0;
}

} // namespace stagecraft
