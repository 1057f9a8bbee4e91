#pragma once
// Which configurations a search tries: for a project's model and cluster, every combination of
// schedule, pipeline (pp), data-parallel (dp) and tensor-parallel (tp) degrees, micro-batch size
// and count, chunks per device and ZeRO stage that uses the chosen GPUs and reaches each batch
// size, keeping only those the schedule's rules and the layer split accept.

#include "project/project.h"

#include <cstddef>
#include <string>
#include <vector>

namespace stagecraft {

/// What to search over. Empty lists mean "the default" documented on each field.
struct SearchSpace {
    /// Registry names; empty = every registered schedule.
    std::vector<std::string> schedules;
    /// Batch sizes per GPU (global batch / GPUs) to reach, each a search point of its own; used
    /// when globalBatch is 0. Empty (and globalBatch 0) = the project's own global batch.
    std::vector<double> batchPerGpu;
    /// One global batch (samples per iteration over all replicas); 0 = use batchPerGpu.
    int globalBatch = 0;
    /// GPUs every configuration uses (pp · dp · tp); 0 = the whole cluster.
    int gpus = 0;
    /// Micro-batch sizes; empty = the project's model.micro_batch_size.
    std::vector<int> microBatchSizes;
    /// ZeRO stages; empty = 0, 1, 2 and 3.
    std::vector<int> zeroStages;
    /// Activation recomputation modes; empty = the project's memory.recompute.
    std::vector<Recompute> recomputes;
    /// Tensor-parallel degrees; empty = every power of two up to cluster.gpus_per_node that
    /// divides the heads and the hidden size.
    std::vector<int> tpDegrees;
    int maxChunks = 16;                    ///< chunks per device tried by looped schedules
    std::size_t maxOpsPerConfig = 1 << 22; ///< larger schedules are skipped (their time is not spent)
};

/// One configuration to evaluate.
struct SearchConfig {
    std::string schedule;
    int pp = 1, dp = 1, tp = 1;
    int microbatches = 1;   ///< per replica (all pipes together)
    int chunks = 1;         ///< as the schedule reads it (1 for schedules without chunks)
    int microBatchSize = 1; ///< samples per micro-batch
    int zeroStage = 0;
    Recompute recompute = Recompute::None;
    int gpus = 1;           ///< pp · dp · tp
    int globalBatch = 1;    ///< microbatches · microBatchSize · dp
    double batchPerGpu = 1; ///< globalBatch / gpus
    int point = 0;          ///< index of the batch point it was enumerated for
    friend bool operator==(const SearchConfig&, const SearchConfig&) = default;
};

/// The batch points of a search: global batch per point and its batch size per GPU.
struct BatchPoint {
    int globalBatch = 0;
    double batchPerGpu = 0;
};

struct SearchPlan {
    int gpus = 0;
    std::vector<BatchPoint> points;
    std::vector<SearchConfig> configs; ///< point by point, then schedule, tp, pp, b, chunks, recompute, ZeRO
    std::size_t skipped = 0;           ///< combinations a schedule's rules or the layer split refused
};

/// Every valid configuration of `space` for `project`, in a fixed order (the order results are
/// reported in, whatever the thread count). Throws ValidationError "search.space" naming the
/// option, the value and the rule for a space that cannot be searched (unknown schedule, more GPUs
/// than the cluster has, a batch size per GPU that gives no whole global batch ...), and
/// "search.costs" for a project whose costs.mode is not analytic.
SearchPlan planSearch(const Project& project, const SearchSpace& space);

/// `project` set to run `config` (parallel section, micro-batch size, ZeRO stage, recompute, the
/// schedule as its only one).
Project projectForConfig(const Project& project, const SearchConfig& config);

/// "A" or "A..B" (powers of two from A up to B), e.g. "0.5..16" -> 0.5, 1, 2, 4, 8, 16. Throws
/// ValidationError "search.space" naming `option` when the text is not that.
/// "none", "selective", "full" -> Recompute; throws ValidationError "search.space" naming `option`.
Recompute parseRecompute(const std::string& text, const std::string& option);

std::vector<double> parseBatchRange(const std::string& text, const std::string& option);

} // namespace stagecraft
