#pragma once
// A Stagecraft project: the model, the cluster, the parallel layout, the memory budget, the cost
// assumptions and the schedules to show. Plain data; `*.stagecraft.json` is its file format
// (project_json.h), project_validate.h checks it, project_fields.h describes every field once
// for forms, `--set` and the JSON reader.

#include "generators/registry.h"
#include "project/runtime_fit_file.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

/// 2: `costs.layers` (per layer range) replaced format 1's `costs.chunk_stages` (per stage of one
/// schedule), which the reader converts (project_legacy.h).
inline constexpr int kProjectFormatVersion = 2;

enum class DType { FP16, BF16, FP32 };
enum class Recompute { None, Selective, Full };
enum class CostMode { Analytic, Manual, Unit };
/// How an iteration ends. Flush: every device waits for the optimizer step of all (the gradient
/// norm and NaN/Inf check are all-reduced first), so the next iteration starts on all devices
/// together. PostValidation (ZB paper §4): each device steps its optimizer eagerly and starts its
/// next iteration after its own last op; the global check is a small all-reduce of a flag that
/// rolls the step back on failure (docs/zero-bubble.md).
enum class OptimizerSync { Flush, PostValidation };

/// What times a schedule (costs.timing; a project's runtime fit takes precedence). ListScheduler:
/// every cross-device dependency waits the link's transfer time after its producer ends.
/// StagecraftRun: the lowered programs as stagecraft-run executes them (passes/run_timing.h):
/// receives posted when their buffer slot is free, so a copy can land between two ops.
enum class Timing { ListScheduler, StagecraftRun };

/// How a micro-batch's tokens are cut into sequence slices (seq1f1b; core/sim/slice_work.h).
/// Uniform: equal tokens, so causal attention gives later slices more work. Balanced: equal work
/// (thunlp's computation-wise partition), so earlier slices hold more tokens and activations.
enum class SliceSplit { Uniform, Balanced };

/// What the attention kernels compute of the s x s query-key square (analytic costs). Dense: all of
/// it, the causal mask applied after (Megatron's count, 4 s^2 b h per layer forward). Causal: the
/// lower triangle only, half of it (flash attention and other kernels that skip masked blocks).
enum class Attention { Dense, Causal };

struct ModelConfig {
    int layers = 24;
    int hidden = 2048;
    int heads = 16;
    int seqLen = 2048;
    int vocab = 51200;
    int microBatchSize = 1;
    DType dtype = DType::BF16;
    Attention attention = Attention::Dense;
    friend bool operator==(const ModelConfig&, const ModelConfig&) = default;
};

struct ClusterConfig {
    std::string gpu = "A100-80GB";
    int gpusPerNode = 8;
    int nodes = 1;
    double peakTflops = 312;     ///< dense fp16/bf16 peak of one GPU, TFLOP/s
    double memoryGib = 80;       ///< memory of one GPU, GiB
    double intraNodeGbps = 2400; ///< point-to-point bandwidth between GPUs of a node, Gbit/s
    double interNodeGbps = 200;  ///< point-to-point bandwidth between nodes (per GPU), Gbit/s
    double latencyUs = 5;        ///< latency of one point-to-point transfer, µs
    friend bool operator==(const ClusterConfig&, const ClusterConfig&) = default;
};

/// The schedule parameters (pp, microbatches, chunks: generators/schedule_params.h, where each
/// is described once) and the parallelism around the pipeline.
struct ParallelConfig : ScheduleParams {
    int dp = 1;                                  ///< data-parallel replicas
    int tp = 1;                                  ///< tensor-parallel degree
    SliceSplit sliceSplit = SliceSplit::Uniform; ///< how sequence slices cut the tokens
    friend bool operator==(const ParallelConfig&, const ParallelConfig&) = default;
};

struct MemoryConfig {
    double limitGib = 80; ///< budget per GPU, GiB; 0 = no limit
    int zeroStage = 0;    ///< 0-3: what data parallelism shards (optimizer, + gradients, + weights)
    Recompute recompute = Recompute::None;
    /// Activation budget of one device for cost-aware generators (zb-auto), in full-stage
    /// micro-batch activations M_a (p for ZB-1p, 2p for ZB-2p); takes precedence over limitGib
    /// when planning. 0 = derive it from limitGib through the memory model.
    double limitMicrobatches = 0;
    friend bool operator==(const MemoryConfig&, const MemoryConfig&) = default;
};

/// Manual costs of one full stage (layers / pp), overriding `costs.f/b/w` for that stage: an
/// embedding or LM-head stage, uneven layer counts. Chunk stages inherit the override of the full
/// stage their layers lie in.
struct StageCostOverride {
    int stage = 0; ///< full stage 0..pp-1
    double f = 0, b = 0, w = 0;
    friend bool operator==(const StageCostOverride&, const StageCostOverride&) = default;
};

/// Manual costs of a range of the model's layers: µs of one micro-batch through layers
/// first..last together (0-based, inclusive).
struct LayerRangeCost {
    int first = 0;
    int last = 0;
    double f = 0, b = 0, w = 0; ///< forward, input gradient, weight gradient (a whole backward: b + w)
    friend bool operator==(const LayerRangeCost&, const LayerRangeCost&) = default;
};

struct CostsConfig {
    CostMode mode = CostMode::Analytic;
    /// µs of one micro-batch through one full stage: forward, input-gradient and weight-gradient
    /// parts of the backward (a schedule that does not split the backward spends b + w).
    double f = 1000, b = 1000, w = 1000;
    double comm = 0;                       ///< µs added to every cross-device dependency (manual mode)
    double efficiency = 0.5;               ///< analytic mode: achieved fraction of peak_tflops
    std::vector<StageCostOverride> stages; ///< manual mode per-stage overrides
    OptimizerSync optimizerSync = OptimizerSync::Flush; ///< how the iteration ends
    Timing timing = Timing::ListScheduler;              ///< what times a schedule
    /// µs of an overlapped forward-backward slot (DualPipe's F&B: the forward of one full stage
    /// and the whole backward of another, run together); 0 = f + b + w, no gain from overlapping.
    double fb = 0;
    /// Manual mode: what the model's layers cost, range by range, in place of `f/b/w` (kept for
    /// captions and `fb`'s ratio): a stage of any schedule costs the sum over the layers it holds
    /// (core/sim/layer_costs.h). Calibration from a trace writes one range per measured stage, so
    /// the measurement carries over to every placement, pp and chunk count. Written only when not
    /// empty; when given, the ranges cover layers 0..model.layers-1 in order.
    std::vector<LayerRangeCost> layers = {};
    /// Where the costs come from and what rule filled what the source did not measure (calibrate
    /// writes it); shown, never interpreted. Written only when not empty.
    std::string note = {};
    /// What each sequence slice costs relative to the others (measured, or a paper's figure), in
    /// slice order; overrides the model's causal-attention rule. Empty = from the model (unit
    /// mode: every slice the same). Needs as many entries as parallel.slices.
    std::vector<double> sliceCosts = {};
    friend bool operator==(const CostsConfig&, const CostsConfig&) = default;
};

struct Project {
    int version = kProjectFormatVersion; ///< the file's `stagecraft` key
    std::string name = "Untitled";
    std::vector<std::string> schedules; ///< registry names to show, in order
    ModelConfig model;
    ClusterConfig cluster;
    ParallelConfig parallel;
    MemoryConfig memory;
    CostsConfig costs;
    /// How the ranks of a measured run spent their time, fitted to its whole timeline
    /// (eval/runtime_fit.h): when set, every schedule is predicted as that runtime would run it on
    /// that machine (eval/project_simulation.h) instead of by the list scheduler with `costs`.
    /// Calibrating from a torch run writes it; the file's `runtime_fit` (the fit file's object).
    std::optional<RuntimeFitRecord> runtimeFit = {};
    friend bool operator==(const Project&, const Project&) = default;
};

/// The built-in project shown on first launch: a GPT-style 1.3B model on one node of 8 A100s
/// (pp = 4, dp = 2), 1F1B, interleaved and ZB-H1 side by side.
Project defaultProject();

/// What the schedule generators read from a project.
ScheduleParams scheduleParams(const Project& project);

/// Throws ValidationError ("project.layers") when model.layers does not split into the stages
/// `info` needs for this project (layers % stages == 0, or (layers + 2) % stages == 0 with one
/// layer fewer on the first and last stage; BitPipe also needs (layers / pp) even).
void checkLayersFit(const Project& project, const GeneratorInfo& info);

std::string_view dtypeName(DType dtype);                 ///< "fp16", "bf16", "fp32"
std::string_view recomputeName(Recompute value);         ///< "none", "selective", "full"
std::string_view costModeName(CostMode mode);            ///< "analytic", "manual", "unit"
std::string_view optimizerSyncName(OptimizerSync value); ///< "flush", "post-validation"
std::string_view timingName(Timing value);               ///< "list-scheduler", "stagecraft-run"
std::string_view sliceSplitName(SliceSplit value);       ///< "uniform", "balanced"
std::string_view attentionName(Attention value);         ///< "dense", "causal"
double dtypeBytes(DType dtype);                          ///< 2 or 4

} // namespace stagecraft
