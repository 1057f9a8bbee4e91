#include "sim/cost_model.h"

#include "error.h"
#include "ir/op_name.h"
#include "number_text.h"
#include "project/layer_costs.h"
#include "project/layer_split.h"
#include "sim/slice_work.h"
#include "sim/transformer_math.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace stagecraft {

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
/// Gbit/s -> bytes/µs: 1e9 / 8 bytes per second, 1e6 µs per second.
constexpr double kBytesPerUsPerGbps = 125.0;
/// TFLOP/s -> FLOP/µs.
constexpr double kFlopsPerUsPerTflops = 1e6;
/// Bytes per parameter of mixed-precision Adam state and gradients (Megatron's accounting):
/// fp32 gradients, fp32 master weights + two fp32 moments (no master copy for fp32 models).
constexpr double kGradBytes = 4.0;
constexpr double kOptimizerBytesMixed = 12.0;
constexpr double kOptimizerBytesFp32 = 8.0;
/// HBM bytes an Adam step touches per parameter: read master, gradient, two moments (16), write
/// master and moments (12), write the 2-byte model copy (2); fp32 models have no copy to write.
constexpr double kStepBytesMixed = 30.0;
constexpr double kStepBytesFp32 = 28.0;
/// Logits kept for the loss's backward on the last stage: s·b·V fp32 values per micro-batch.
constexpr double kLogitBytes = 4.0;

struct HbmEntry {
    std::string_view key; ///< lower-case substring of cluster.gpu
    double tbPerS;
};
// Vendor data-sheet HBM bandwidths; the first matching key wins (A100-40 before A100).
constexpr std::array<HbmEntry, 9> kHbm{{{"h200", 4.8},
                                        {"h100", 3.35},
                                        {"h800", 3.35},
                                        {"a100-40", 1.555},
                                        {"a100", 2.039},
                                        {"a800", 2.039},
                                        {"v100", 0.9},
                                        {"mi300", 5.3},
                                        {"l40", 0.864}}};
constexpr double kDefaultHbmTbPerS = 2.0;

TransformerShape shapeOf(const Project& project) {
    const ModelConfig& m = project.model;
    TransformerShape t;
    t.layers = m.layers;
    t.hidden = m.hidden;
    t.heads = m.heads;
    t.seqLen = m.seqLen;
    t.vocab = m.vocab;
    t.microBatch = m.microBatchSize;
    t.dtypeBytes = dtypeBytes(m.dtype);
    t.tp = std::max(1, project.parallel.tp);
    return t;
}

/// Layers of each stage of one pipe: the transformer_math split, or in manual mode (memory only)
/// an even fractional share when the layers do not split.
std::vector<double> layersPerStage(const Project& project, const Schedule& s, bool mustSplit) {
    const std::vector<int> split = splitLayers(project.model.layers, s.stagesPerPipe);
    if (!split.empty()) return {split.begin(), split.end()};
    if (mustSplit)
        throw ValidationError("project.layers", "model.layers",
                              layerSplitMessage(project.model.layers, s.stagesPerPipe, s.name) +
                                  "; the analytic cost model needs the split (unit and manual costs do not)");
    return std::vector<double>(std::size_t(s.stagesPerPipe),
                               double(project.model.layers) / double(std::max(1, s.stagesPerPipe)));
}

/// Per chunk stage of one pipe, unmerged: forward, input-gradient and weight-gradient times.
struct StageTimes {
    std::vector<double> f, b, w;
};

/// Full stage (0..p-1) whose layers chunk stage `stage` of `stages` lies in.
int fullStageOf(int stage, int devices, int stages) {
    return int((long long)stage * devices / std::max(1, stages));
}

StageTimes manualTimes(const Project& project, const Schedule& s) {
    const CostsConfig& c = project.costs;
    const double fraction = s.stageFraction();
    StageTimes t;
    // The base of each stage: what its layers cost (costs.layers, the same for any placement, pp
    // or chunk count), or its share of a full stage's f, b, w.
    if (!c.layers.empty()) {
        for (const StageCost& cost : stageCostsFromLayers(c.layers, project.model.layers, s.stagesPerPipe)) {
            t.f.push_back(cost.f);
            t.b.push_back(cost.b);
            t.w.push_back(cost.w);
        }
    } else {
        t.f.assign(std::size_t(s.stagesPerPipe), c.f * fraction);
        t.b.assign(std::size_t(s.stagesPerPipe), c.b * fraction);
        t.w.assign(std::size_t(s.stagesPerPipe), c.w * fraction);
    }
    // A full stage's override replaces the base of every chunk stage whose layers it holds.
    for (std::size_t i = 0; i < c.stages.size(); ++i) {
        const StageCostOverride& o = c.stages[i];
        if (o.stage < 0 || o.stage >= s.devices)
            throw ValidationError("costs.stages", "costs.stages[" + std::to_string(i) + "].stage",
                                  "costs.stages[" + std::to_string(i) +
                                      "].stage = " + std::to_string(o.stage) +
                                      ": overrides name a full stage 0.." + std::to_string(s.devices - 1) +
                                      " (pp = " + std::to_string(s.devices) + ")");
        for (int stage = 0; stage < s.stagesPerPipe; ++stage) {
            if (fullStageOf(stage, s.devices, s.stagesPerPipe) != o.stage) continue;
            t.f[std::size_t(stage)] = o.f * fraction;
            t.b[std::size_t(stage)] = o.b * fraction;
            t.w[std::size_t(stage)] = o.w * fraction;
        }
    }
    return t;
}

void requirePositive(double value, const char* field) {
    if (!(value > 0.0))
        throw ValidationError("costs.analytic", field,
                              std::string(field) + " = " + std::to_string(value) +
                                  ": the analytic cost model needs a positive value");
}

/// Everything analytic mode derives from the model and the cluster.
struct Analytic {
    TransformerShape t;
    std::vector<double> layers; ///< per chunk stage of one pipe
    double flopsPerUs = 0;
    double tpAllReduceUs = 0;  ///< one all-reduce of a layer's activations over the tp group
    double attentionScale = 1; ///< the share of the query-key square the kernels compute

    Analytic(const Project& project, const Schedule& s, bool mustSplit)
        : t(shapeOf(project)), layers(layersPerStage(project, s, mustSplit)) {
        const ClusterConfig& c = project.cluster;
        flopsPerUs = c.peakTflops * project.costs.efficiency * kFlopsPerUsPerTflops;
        attentionScale = project.model.attention == Attention::Causal ? 0.5 : 1.0;
        const int tp = t.tp;
        if (tp > 1) {
            const double gbps = tp <= std::max(1, c.gpusPerNode) ? c.intraNodeGbps : c.interNodeGbps;
            const double activation = t.seqLen * t.microBatch * t.hidden * t.dtypeBytes;
            tpAllReduceUs = ringAllReduceUs(activation, tp, gbps * kBytesPerUsPerGbps, c.latencyUs);
        }
    }

    bool last(int stage) const { return stage + 1 == int(layers.size()); }

    /// Parameters of one stage replica per GPU: its layers, the embedding on the first stage and the
    /// untied LM head on the last.
    double params(int stage) const {
        return layers[std::size_t(stage)] * layerParams(t) + (stage == 0 ? embeddingParams(t) : 0.0) +
               (last(stage) ? embeddingParams(t) : 0.0);
    }

    /// The attention matmuls of one layer's forward (QK^T and AV over the whole sequence): the
    /// part of the work that grows with the square of the sequence length. Causal kernels compute
    /// half of the square (model.attention).
    double attentionCore() const {
        return attentionScale * 4.0 * t.seqLen * t.seqLen * t.microBatch * t.hidden / double(t.tp);
    }
    /// What causal kernels skip of transformer_math's dense count, per layer forward.
    double skippedAttention() const { return (1.0 - attentionScale) * attentionCore() / attentionScale; }

    /// The part of `times(recompute)` spent in attention matmuls: the input-gradient backward
    /// does them twice, and a recompute (full or selective) once more.
    StageTimes attentionTimes(Recompute recompute) const {
        const double core = attentionCore() / flopsPerUs;
        const double backward = recompute == Recompute::None ? 2.0 : 3.0;
        StageTimes out;
        for (const double l : layers) {
            out.f.push_back(l * core);
            out.b.push_back(l * backward * core);
            out.w.push_back(0.0);
        }
        return out;
    }

    StageTimes times(Recompute recompute) const {
        const double attentionCore = this->attentionCore();
        // transformer_math counts dense attention; causal kernels skip half of it, once in the
        // forward (and a full recompute's), twice in the input gradient.
        const double skipped = skippedAttention();
        const double forwardFlops = layerForwardFlops(t) - skipped;
        const double backwardInputFlops = layerBackwardInputFlops(t) - 2.0 * skipped;
        const double recomputeFlops = recompute == Recompute::Full        ? forwardFlops
                                      : recompute == Recompute::Selective ? attentionCore
                                                                          : 0.0;
        // Megatron's tensor parallelism: two activation all-reduces in a layer's forward, two in its
        // input gradient, two more when full recompute repeats the forward.
        const double tpForward = 2.0 * tpAllReduceUs;
        const double tpBackward = (recompute == Recompute::Full ? 4.0 : 2.0) * tpAllReduceUs;
        StageTimes out;
        for (int stage = 0; stage < int(layers.size()); ++stage) {
            const double l = layers[std::size_t(stage)];
            const double head = last(stage) ? lmHeadFlops(t) : 0.0;
            out.f.push_back((l * forwardFlops + head) / flopsPerUs + l * tpForward);
            out.b.push_back((l * (backwardInputFlops + recomputeFlops) + head) / flopsPerUs + l * tpBackward);
            out.w.push_back((l * layerBackwardWeightFlops(t) + head) / flopsPerUs);
        }
        return out;
    }

    /// Model FLOPs of one micro-batch through the whole model, over all its GPUs (no recompute).
    double flopsPerMicrobatch() const {
        double total = 0;
        for (int stage = 0; stage < int(layers.size()); ++stage)
            total += layers[std::size_t(stage)] *
                     (layerForwardFlops(t) + layerBackwardInputFlops(t) + layerBackwardWeightFlops(t));
        return (total + 3.0 * lmHeadFlops(t)) * double(t.tp);
    }

    /// Of activationBytes, the attention scores, softmax and dropout mask Megatron counts
    /// (5·a·s²·b per layer), which only dense kernels without recompute keep.
    double attentionScoreBytes(int stage, Recompute recompute) const {
        if (recompute != Recompute::None || attentionScale < 1.0) return 0.0;
        const double sbh = t.seqLen * t.microBatch * t.hidden;
        return layers[std::size_t(stage)] * sbh * 5.0 * t.heads * t.seqLen / t.hidden * t.dtypeBytes / 2.0 /
               double(t.tp);
    }

    double activationBytes(int stage, Recompute recompute) const {
        const double sbh = t.seqLen * t.microBatch * t.hidden;
        double perLayer = layerActivationBytes(t);
        // Selective recompute drops Megatron's 5·a·s²·b bytes of attention scores, softmax and its
        // dropout mask; causal kernels (flash attention) never write them: either way 34·s·b·h.
        if (recompute == Recompute::Selective || (recompute == Recompute::None && attentionScale < 1.0))
            perLayer = 34.0 * sbh * t.dtypeBytes / 2.0 / double(t.tp);
        if (recompute == Recompute::Full) perLayer = boundaryBytes(t);
        const double logits =
            last(stage) ? kLogitBytes * t.seqLen * t.microBatch * t.vocab / double(t.tp) : 0.0;
        return layers[std::size_t(stage)] * perLayer + logits;
    }
};

/// Static, activation and kept-for-W bytes of every stage replica.
MemoryInputs analyticMemory(const Project& project, const Schedule& s, const Analytic& a) {
    const int n = std::max(1, project.parallel.dp) * std::max(1, s.pipes);
    const int zero = project.memory.zeroStage;
    const bool fp32 = project.model.dtype == DType::FP32;
    const double weights = dtypeBytes(project.model.dtype) / (zero >= 3 ? n : 1);
    const double grads = kGradBytes / (zero >= 2 ? n : 1);
    const double optimizer = (fp32 ? kOptimizerBytesFp32 : kOptimizerBytesMixed) / (zero >= 1 ? n : 1);
    MemoryInputs inputs;
    // The budget is the project's limit, but never more than the GPU holds.
    const double gpuBytes = project.cluster.memoryGib * kBytesPerGib;
    inputs.limitBytes = project.memory.limitGib * kBytesPerGib;
    if (inputs.limitBytes > 0 && gpuBytes > 0 && gpuBytes < inputs.limitBytes) {
        inputs.limitBytes = gpuBytes;
        inputs.limitIsGpuMemory = true;
    }
    inputs.stages.reserve(std::size_t(s.pipes) * s.stagesPerPipe);
    for (int pipe = 0; pipe < s.pipes; ++pipe)
        for (int stage = 0; stage < s.stagesPerPipe; ++stage) {
            StageMemory m;
            m.staticBytes = a.params(stage) * (weights + grads + optimizer);
            // A sequence slice holds its share of the micro-batch's activations.
            const double share = s.sliceShare();
            m.activationBytes = a.activationBytes(stage, project.memory.recompute) * share;
            m.keptForWBytes = s.splitBackward
                                  ? a.layers[std::size_t(stage)] * layerWeightGradActivationBytes(a.t) * share
                                  : 0.0;
            // A recomputed forward keeps the stage's input, one boundary activation.
            m.checkpointBytes = boundaryBytes(a.t) * share;
            inputs.stages.push_back(m);
        }
    return inputs;
}

/// True when every GPU of the data-parallel groups of `devices` sits on one node.
bool oneNode(const Project& project, const std::vector<int>& devices) {
    const long long block = (long long)std::max(1, project.parallel.dp) * std::max(1, project.parallel.tp);
    const long long perNode = std::max(1, project.cluster.gpusPerNode);
    long long node = -1;
    for (const int d : devices)
        for (const long long rank : {d * block, d * block + block - 1}) {
            if (node >= 0 && rank / perNode != node) return false;
            node = rank / perNode;
        }
    return true;
}

/// Gradient-sync and optimizer durations per stage replica (when `timed`), and the collective
/// bytes (always: they are the workload's, whatever times the user gives).
void analyticTail(const Project& project, const Schedule& s, const Analytic& a, bool timed,
                  CostSetup& setup) {
    const ClusterConfig& c = project.cluster;
    const int dp = std::max(1, project.parallel.dp);
    const int n = dp * std::max(1, s.pipes);
    const int zero = project.memory.zeroStage;
    const double stepBytes = project.model.dtype == DType::FP32 ? kStepBytesFp32 : kStepBytesMixed;
    const double hbm = hbmBytesPerUs(c.gpu);
    const double gpusPerReplica = double(dp) * double(a.t.tp);
    auto& sync = setup.costs.duration[int(OpKind::GradSync)];
    auto& step = setup.costs.duration[int(OpKind::Optimizer)];
    setup.gradientBytes.assign(std::size_t(std::max(0, s.stagesPerPipe)), 0.0);
    for (int pipe = 0; pipe < s.pipes; ++pipe)
        for (int stage = 0; stage < s.stagesPerPipe; ++stage) {
            std::vector<int> members;
            members.reserve(std::size_t(s.pipes));
            for (int q = 0; q < s.pipes; ++q) members.push_back(s.slot(q, stage).device);
            const double gbps = oneNode(project, members) ? c.intraNodeGbps : c.interNodeGbps;
            const double bytesPerUs = gbps * kBytesPerUsPerGbps;
            const double grads = a.params(stage) * dtypeBytes(project.model.dtype);
            setup.gradientBytes[std::size_t(stage)] = grads;
            const std::size_t slot = std::size_t(pipe) * s.stagesPerPipe + stage;
            if (timed) {
                sync[slot] = zero == 0 ? ringAllReduceUs(grads, n, bytesPerUs, c.latencyUs)
                                       : ringReduceScatterUs(grads, n, bytesPerUs, c.latencyUs);
                step[slot] = a.params(stage) / (zero >= 1 ? n : 1) * stepBytes / hbm;
            }
            // Bytes each GPU sends: all-reduce 2(n-1)/n; ZeRO-1/2 reduce-scatter + all-gather of the
            // updated weights (the same); ZeRO-3 reduce-scatter + a weight all-gather before the
            // forward and one before the backward pass.
            const double share = double(n - 1) / double(n);
            setup.collectiveBytesPerIteration += (zero == 3 ? 3.0 : 2.0) * share * grads * gpusPerReplica;
        }
    // Tensor-parallel activation all-reduces: per layer and micro-batch 2 in F, 2 (4 with full
    // recompute) in B, each 2(tp-1)/tp of s·b·h·dtype per GPU.
    const int tp = a.t.tp;
    if (tp > 1) {
        const double perLayer = (project.memory.recompute == Recompute::Full ? 6.0 : 4.0) * 2.0 *
                                double(tp - 1) / double(tp) * a.t.seqLen * a.t.microBatch * a.t.hidden *
                                a.t.dtypeBytes;
        setup.collectiveBytesPerIteration +=
            perLayer * project.model.layers * s.sampleMicrobatches() * double(tp) * dp;
    }
}

/// `t` with every time times `share`: the mean sequence slice's share of its micro-batch's stage
/// times (what each slice costs relative to that mean: sliceCosts).
StageTimes sliced(StageTimes t, double share) {
    if (share == 1.0) return t;
    for (auto* times : {&t.f, &t.b, &t.w})
        for (double& v : *times) v *= share;
    return t;
}

/// Fill op durations from per-stage times (the same for every pipe).
void fillDurations(const Schedule& s, const StageTimes& t, OpCosts& costs) {
    const std::size_t slots = std::size_t(s.pipes) * s.stagesPerPipe;
    for (auto& d : costs.duration) d.assign(slots, 0.0);
    for (int pipe = 0; pipe < s.pipes; ++pipe)
        for (int stage = 0; stage < s.stagesPerPipe; ++stage) {
            const std::size_t slot = std::size_t(pipe) * s.stagesPerPipe + stage;
            const std::size_t i = std::size_t(stage);
            costs.duration[int(OpKind::F)][slot] = t.f[i];
            costs.duration[int(OpKind::B)][slot] = s.splitBackward ? t.b[i] : t.b[i] + t.w[i];
            costs.duration[int(OpKind::W)][slot] = s.splitBackward ? t.w[i] : 0.0;
            costs.duration[int(OpKind::R)][slot] = t.f[i]; // a recompute re-runs the forward
        }
}

/// Slice lengths of the project's split; throws when the sequence has fewer tokens than slices.
std::vector<int> sliceLengths(const Project& project, const Schedule& s, const Analytic& a) {
    const int k = s.sequenceSlices, tokens = project.model.seqLen;
    std::vector<int> lengths;
    if (project.parallel.sliceSplit == SliceSplit::Balanced) {
        // The cut is one for every stage: balanced on the whole model's forward.
        const StageTimes all = a.times(project.memory.recompute);
        const StageTimes attention = a.attentionTimes(project.memory.recompute);
        double total = 0, quadratic = 0;
        for (std::size_t i = 0; i < all.f.size(); ++i) total += all.f[i], quadratic += attention.f[i];
        lengths = balancedSliceLengths(tokens, k, total > 0 ? quadratic / total : 0.0, 1,
                                       project.model.attention == Attention::Dense);
    } else {
        lengths = uniformSliceLengths(tokens, k);
    }
    if (lengths.empty())
        throw ValidationError("costs.slices", "parallel.slices",
                              "parallel.slices = " + std::to_string(k) + ": model.seq_len = " +
                                  std::to_string(tokens) + " tokens cannot be cut into " + std::to_string(k) +
                                  " " + std::string(sliceSplitName(project.parallel.sliceSplit)) +
                                  " slices of at least one token each");
    return lengths;
}

} // namespace

std::vector<int> sequenceSliceLengths(const Project& project, const Schedule& schedule) {
    if (schedule.sequenceSlices <= 1) return {project.model.seqLen};
    return sliceLengths(project, schedule, Analytic(project, schedule, false));
}

namespace {

bool allOnes(const std::vector<double>& factors) {
    return std::all_of(factors.begin(), factors.end(), [](double v) { return std::abs(v - 1.0) < 1e-12; });
}

/// What each sequence slice of a sliced schedule costs, weighs and sends relative to the mean slice
/// (core/sim/slice_work.h). The relative costs come from costs.slice_costs when given; otherwise from the
/// model: each (stage, kind) splits into attention, which grows with the query-key pairs a slice computes,
/// and the rest, which grows with its tokens (manual costs split in the model's proportion). Unit mode keeps
/// every slice equal unless costs.slice_costs says otherwise. In analytic mode dense attention kernels make
/// a sliced micro-batch cost less than a whole one (each slice computes its queries against the keys so
/// far, not the whole square): the mean slice's `duration` follows. Manual costs are what a micro-batch
/// costs as the schedule runs it (calibrate sums a sliced run's slices), so they stay.
void sliceCosts(const Project& project, const Schedule& s, const Analytic* a, bool analytic,
                CostSetup& setup) {
    const int k = s.sequenceSlices;
    if (k <= 1) return;
    const std::vector<double>& given = project.costs.sliceCosts;
    if (!given.empty() && int(given.size()) != k)
        throw ValidationError(
            "costs.slice_costs", "costs.slice_costs",
            "costs.slice_costs has " + std::to_string(given.size()) +
                " entries: it needs one per sequence slice, parallel.slices = " + std::to_string(k) +
                " (clear it, --set costs.slice_costs=, for the model's causal-attention rule)");
    const std::size_t slots = std::size_t(s.pipes) * s.stagesPerPipe;
    OpCosts& costs = setup.costs;
    costs.slices = k;
    const auto normalized = [](std::vector<double> v) {
        double mean = 0;
        for (const double x : v) mean += x / double(v.size());
        for (double& x : v) x /= mean;
        return std::pair{std::move(v), mean};
    };
    if (!given.empty()) {
        const std::vector<double> relative = normalized(given).first;
        for (const OpKind kind : {OpKind::F, OpKind::B, OpKind::W, OpKind::R}) {
            if (allOnes(relative)) break;
            auto& scale = costs.sliceScale[int(kind)];
            for (std::size_t slot = 0; slot < slots; ++slot)
                scale.insert(scale.end(), relative.begin(), relative.end());
        }
    }
    if (!a) return;
    const std::vector<int> lengths = sliceLengths(project, s, *a);
    // A slice sends its own tokens: what its transfer carries relative to the mean slice's
    // (p2pBytesPerTransfer).
    std::vector<double> shares;
    shares.reserve(lengths.size());
    for (const int tokens : lengths) shares.push_back(double(tokens) * double(k) / project.model.seqLen);
    if (!allOnes(shares)) setup.p2pSliceShares = std::move(shares);
    // What each slice keeps: its tokens' share of a stage's activations, and of the scores dense
    // kernels keep, its rectangle's.
    std::vector<double> weights;
    for (std::size_t slot = 0; slot < slots; ++slot) {
        const int stage = int(slot % std::size_t(s.stagesPerPipe));
        const double total = a->activationBytes(stage, project.memory.recompute);
        const double scores = a->attentionScoreBytes(stage, project.memory.recompute);
        const auto w = relativeSliceWork(lengths, total > 0 ? scores / total : 0.0, true);
        weights.insert(weights.end(), w.begin(), w.end());
    }
    if (!allOnes(weights)) setup.memory.sliceScale = std::move(weights);
    // Each later slice's backward adds to the key and value gradients of the tokens before it: from
    // the last slice's backward on, K and V gradients of every token but the last slice's.
    setup.memory.slices = k;
    const double earlier = double(project.model.seqLen - lengths.back()) / project.model.seqLen;
    for (std::size_t slot = 0; slot < slots; ++slot) {
        const int stage = int(slot % std::size_t(s.stagesPerPipe));
        setup.memory.stages[slot].keyValueGradientBytes =
            a->layers[std::size_t(stage)] * 2.0 * boundaryBytes(a->t) * earlier;
    }
    const bool dense = project.model.attention == Attention::Dense;
    if (!given.empty() && !(analytic && dense)) return;
    const StageTimes model = a->times(project.memory.recompute);
    const StageTimes attention = a->attentionTimes(project.memory.recompute);
    const auto share = [](double part, double whole) {
        return whole > 0 && std::isfinite(part / whole) ? std::clamp(part / whole, 0.0, 1.0) : 0.0;
    };
    std::array<std::vector<double>, kOpKindCount> scale;
    for (std::size_t slot = 0; slot < slots; ++slot) {
        const std::size_t i = slot % std::size_t(s.stagesPerPipe);
        const double forward = share(attention.f[i], model.f[i]);
        const double backward = s.splitBackward ? share(attention.b[i], model.b[i])
                                                : share(attention.b[i], model.b[i] + model.w[i]);
        for (const auto& [kind, attentionShare] :
             {std::pair{OpKind::F, forward}, std::pair{OpKind::B, backward}, std::pair{OpKind::W, 0.0},
              std::pair{OpKind::R, forward}}) {
            auto [relative, mean] = normalized(relativeSliceWork(lengths, attentionShare, dense));
            if (analytic) costs.duration[int(kind)][slot] *= mean;
            scale[int(kind)].insert(scale[int(kind)].end(), relative.begin(), relative.end());
        }
    }
    if (!given.empty()) return; // the measured relative costs, at the model's total
    for (int kind = 0; kind < kOpKindCount; ++kind)
        if (!allOnes(scale[kind])) costs.sliceScale[kind] = std::move(scale[kind]);
}

/// Every slice's transfer time, between devices of one node and between nodes, from what it carries.
template <typename TimeOf>
void sliceTransferTimes(const CostSetup& setup, TimeOf&& timeOf, OpCosts& costs) {
    costs.commOfSlice.clear();
    costs.commInterNodeOfSlice.clear();
    for (const double share : setup.p2pSliceShares) {
        const auto [intra, inter] = timeOf(share);
        costs.commOfSlice.push_back(intra);
        costs.commInterNodeOfSlice.push_back(inter);
    }
}

/// ", slices' F 0.80/0.95/1.08/1.17 of the mean (stage 1)": what the costs summary says of slices
/// that differ ("" when they do not). Stage 1 (or 0) stands for the stages: the last holds the head.
std::string sliceSummary(const Schedule& s, const OpCosts& costs) {
    const auto& scale = costs.sliceScale[int(OpKind::F)];
    if (scale.empty() || costs.slices <= 1) return "";
    const std::size_t stage = s.stagesPerPipe > 1 ? 1 : 0;
    std::string out = ", slices' F ";
    for (std::size_t q = 0; q < std::size_t(costs.slices); ++q) {
        char text[32];
        std::snprintf(text, sizeof text, "%s%.2f", q ? "/" : "", scale[stage * costs.slices + q]);
        out += text;
    }
    return out + " of the mean (stage " + std::to_string(stage) + ")";
}

/// memory.recompute = full charges a forward inside every backward; a schedule with R ops places
/// that forward itself, so the two together would count it twice.
void refuseDoubleRecompute(const Project& project, const Schedule& s) {
    if (project.memory.recompute != Recompute::Full) return;
    for (const auto& ops : s.order)
        for (const Op& op : ops)
            if (op.kind == OpKind::R)
                throw ValidationError(
                    "costs.recompute", "memory.recompute",
                    "memory.recompute = full recomputes inside every backward, but schedule '" + s.name +
                        "' places its own recompute ops (" + opName(op, s.splitBackward, s.sequenceSlices) +
                        "): set memory.recompute to none or selective for it");
}

/// Mean over the p full stages: the sum over one pipe's stages divided by p.
double perFullStage(const std::vector<double>& times, int devices) {
    double sum = 0;
    for (const double v : times) sum += v;
    return sum / double(std::max(1, devices));
}

} // namespace

std::vector<int> nodeOfPipelineDevice(const Project& project, int devices) {
    const long long block = (long long)std::max(1, project.parallel.dp) * std::max(1, project.parallel.tp);
    const long long perNode = std::max(1, project.cluster.gpusPerNode);
    std::vector<int> nodes(std::size_t(std::max(0, devices)));
    for (int d = 0; d < devices; ++d) nodes[std::size_t(d)] = int(d * block / perNode);
    return nodes;
}

double hbmBytesPerUs(const std::string& gpu) {
    std::string lower(gpu);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char ch) { return char(std::tolower(ch)); });
    double tbPerS = kDefaultHbmTbPerS;
    for (const HbmEntry& e : kHbm)
        if (lower.find(e.key) != std::string::npos) {
            tbPerS = e.tbPerS;
            break;
        }
    return tbPerS * 1e6; // 1 TB/s = 1e12 bytes/s = 1e6 bytes/µs
}

CostSetup buildCostSetup(const Project& project, const Schedule& s) {
    if (s.devices != project.parallel.pp)
        throw ValidationError("costs.devices", "parallel.pp",
                              "parallel.pp = " + std::to_string(project.parallel.pp) + ", but schedule '" +
                                  s.name + "' runs on " + std::to_string(s.devices) +
                                  " pipeline devices; set parallel.pp to match");
    refuseDoubleRecompute(project, s);
    CostSetup setup;
    const CostMode mode = project.costs.mode;
    setup.summary.mode = std::string(costModeName(mode));

    // An overlapped slot lasts fb / (f + b + w) of its ops' serial time (docs/project-format.md).
    const double fb = project.costs.fb;
    if (mode == CostMode::Unit) {
        setup.unitless = true;
        setup.costs = fullStageCosts(s, 1.0, 1.0, 1.0);
        if (fb > 0) setup.costs.overlap = fb / 3.0;
        setup.memory = unitMemoryInputs(s);
        // Memory is counted in M_a here, so a limit in activations applies as it is.
        setup.memory.limitBytes = project.memory.limitMicrobatches;
        sliceCosts(project, s, nullptr, false, setup);
        setup.summary.f = setup.summary.b = setup.summary.w = 1.0;
        setup.summary.text = "unit: F = B = W = 1 per stage, no communication" + sliceSummary(s, setup.costs);
        return setup;
    }

    const bool analytic = mode == CostMode::Analytic;
    if (analytic) {
        requirePositive(project.cluster.peakTflops, "cluster.peak_tflops");
        requirePositive(project.costs.efficiency, "costs.efficiency");
        requirePositive(project.cluster.intraNodeGbps, "cluster.intra_node_gbps");
        requirePositive(project.cluster.interNodeGbps, "cluster.inter_node_gbps");
    }
    const Analytic model(project, s, analytic);
    const StageTimes whole = analytic ? model.times(project.memory.recompute) : manualTimes(project, s);
    const StageTimes times = sliced(whole, s.sliceShare());
    fillDurations(s, times, setup.costs);
    const double serial = project.costs.f + project.costs.b + project.costs.w;
    if (fb > 0 && serial > 0) setup.costs.overlap = fb / serial;
    setup.memory = analyticMemory(project, s, model);
    sliceCosts(project, s, &model, analytic, setup);
    setup.flopsPerIteration =
        model.flopsPerMicrobatch() * s.sampleMicrobatches() * double(std::max(1, project.parallel.dp));
    // A sequence slice sends its share of the boundary activation.
    setup.p2pBytesPerTransfer = boundaryBytes(model.t) * s.sliceShare();
    setup.summary.f = perFullStage(whole.f, s.devices); // per micro-batch, whatever its slices
    setup.summary.b = perFullStage(whole.b, s.devices);
    setup.summary.w = perFullStage(whole.w, s.devices);
    const std::string fbw = "F " + durationText(setup.summary.f) + ", B " + durationText(setup.summary.b) +
                            ", W " + durationText(setup.summary.w) + " per stage" +
                            sliceSummary(s, setup.costs);

    analyticTail(project, s, model, analytic, setup);
    if (!analytic) {
        setup.costs.comm = setup.costs.commInterNode = project.costs.comm;
        // A given transfer time is the mean slice's; a slice's moves its own bytes.
        sliceTransferTimes(
            setup,
            [&](double share) {
                return std::pair{project.costs.comm * share, project.costs.comm * share};
            },
            setup.costs);
        setup.summary.commIntra = setup.summary.commInter = project.costs.comm;
        setup.summary.text = "manual: " + fbw + ", comm " + durationText(project.costs.comm);
        if (!project.costs.layers.empty())
            setup.summary.text += ", per-layer costs (" + std::to_string(project.costs.layers.size()) +
                                  " range" + (project.costs.layers.size() == 1 ? "" : "s") + ")";
        if (!project.costs.stages.empty())
            setup.summary.text += ", " + std::to_string(project.costs.stages.size()) + " stage override" +
                                  (project.costs.stages.size() == 1 ? "" : "s");
        return setup;
    }

    const ClusterConfig& c = project.cluster;
    const double bytes = setup.p2pBytesPerTransfer;
    setup.costs.comm = c.latencyUs + bytes / (c.intraNodeGbps * kBytesPerUsPerGbps);
    setup.costs.commInterNode = c.latencyUs + bytes / (c.interNodeGbps * kBytesPerUsPerGbps);
    sliceTransferTimes(
        setup,
        [&](double share) {
            return std::pair{c.latencyUs + bytes * share / (c.intraNodeGbps * kBytesPerUsPerGbps),
                             c.latencyUs + bytes * share / (c.interNodeGbps * kBytesPerUsPerGbps)};
        },
        setup.costs);
    setup.costs.nodeOfDevice = nodeOfPipelineDevice(project, s.devices);
    setup.summary.commIntra = setup.costs.comm;
    setup.summary.commInter = setup.costs.commInterNode;
    setup.summary.text = "analytic: " + fbw + ", p2p " + durationText(setup.costs.comm) + " intra / " +
                         durationText(setup.costs.commInterNode) + " inter";
    return setup;
}

} // namespace stagecraft
