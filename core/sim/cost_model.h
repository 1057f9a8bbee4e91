#pragma once
// The project-level cost model: durations of every op of a schedule (F, B, W, gradient syncs,
// optimizer steps), the point-to-point time of every link and the memory inputs, from one of
// three sources chosen by `costs.mode` (manual µs per full stage or per range of layers, unit
// costs, or analytic from the model and the cluster). docs/cost-model.md gives every formula and
// constant.

#include "project/project.h"
#include "sim/list_scheduler.h"
#include "sim/memory_model.h"

#include <string>
#include <vector>

namespace stagecraft {

/// What the cost model assumed, for captions and tables.
struct CostSummary {
    std::string mode; ///< "analytic", "manual", "unit"; "runtime fit" when a project's runtime fit times it
    /// One line for charts: "analytic: F 1.23 ms, B 1.20 ms, W 0.95 ms per stage, p2p 40 µs
    /// intra / 310 µs inter".
    std::string text;
    /// Mean over the p full stages of one micro-batch's F, B (input gradient) and W (weight
    /// gradient) time, µs (units in unit mode).
    double f = 0, b = 0, w = 0;
    double commIntra = 0; ///< one activation transfer between GPUs of a node, µs
    double commInter = 0; ///< the same between nodes, µs
};

struct CostSetup {
    OpCosts costs;
    MemoryInputs memory;
    CostSummary summary;
    bool unitless = false;          ///< unit mode: times are units, memory in M_a
    double flopsPerIteration = 0;   ///< model FLOPs of one iteration over all GPUs (no recompute)
    double p2pBytesPerTransfer = 0; ///< bytes one GPU sends per pipeline transfer (s·b·h·dtype/tp)
    /// Sequence slices of unequal length (a balanced split): what slice q's transfer carries
    /// relative to p2pBytesPerTransfer (the mean slice's; the shares' mean is 1). Empty when every
    /// transfer carries p2pBytesPerTransfer.
    std::vector<double> p2pSliceShares;
    /// [stage of a pipe]: bytes of one stage replica's gradients on one GPU, what its gradient sync
    /// all-reduces (or reduce-scatters); empty under unit costs.
    std::vector<double> gradientBytes;
    /// Bytes all GPUs together send in collectives in one iteration: gradient all-reduce or
    /// reduce-scatter, ZeRO's weight all-gathers.
    double collectiveBytesPerIteration = 0;
};

/// Where pipeline device d sits: global rank = pp_rank·(dp·tp) + dp_rank·tp + tp_rank, so pipeline
/// device d's first GPU is on node floor(d·dp·tp / gpus_per_node). One entry per device.
std::vector<int> nodeOfPipelineDevice(const Project& project, int devices);

/// HBM bandwidth of one GPU in bytes/µs, looked up by a case-insensitive substring of
/// `cluster.gpu` (H200, H100, A100-40GB, A100, V100, ...); 2e6 bytes/µs (2 TB/s) otherwise.
double hbmBytesPerUs(const std::string& gpu);

/// Costs and memory inputs of `schedule` (normally after addIterationTail, so GradSync and
/// Optimizer ops get their durations) for `project`. Throws ValidationError when the schedule's
/// device count differs from parallel.pp ("costs.devices"), a stage override names no full stage
/// ("costs.stages"), costs.layers do not describe the model's layers ("project.field") or, in
/// analytic mode, the layers do not split into the schedule's stages ("project.layers").
CostSetup buildCostSetup(const Project& project, const Schedule& schedule);

/// The tokens of each sequence slice of `schedule` (its sequenceSlices, in order) by the project's
/// parallel.slice_split, as the costs cut them (core/sim/slice_work.h); {seq_len} without slices.
/// Throws ValidationError ("costs.slices") when the sequence has fewer tokens than slices.
std::vector<int> sequenceSliceLengths(const Project& project, const Schedule& schedule);

} // namespace stagecraft
