#pragma once
// The one entry point from a project and a schedule to a prediction: iteration tail (gradient
// syncs, optimizer steps), cost model, simulation, time metrics, memory and throughput. The CLI,
// the GUI and the tests all call predict().

#include "ir/op_index.h"
#include "ir/schedule.h"
#include "project/project.h"
#include "sim/cost_model.h"
#include "sim/memory_model.h"
#include "sim/metrics.h"
#include "sim/timeline.h"
#include "work_control.h"

#include <memory>
#include <string>

namespace stagecraft {

struct ScheduleReport {
    std::string schedule;  ///< schedule name
    bool unitless = false; ///< unit mode: times in units, memory in M_a, no throughput
    CostSummary costs;
    /// One iteration, µs (units in unit mode): the makespan under costs.optimizer_sync = flush;
    /// under post-validation the longest device span (its first op to its own last op, optimizer
    /// step included) plus the rollback check, since devices no longer wait for each other.
    double iterationUs = 0;
    bool postValidation = false; ///< costs.optimizer_sync = post-validation
    /// The post-validation check: an all-reduce of one flag over the pp * dp GPUs, latency-bound,
    /// 2 (n - 1) cluster.latency_us (analytic mode; 0 otherwise, like syncs). 0 under flush.
    double rollbackCheckUs = 0;
    std::string notes; ///< what the generator reported about the order (zb-auto's bound)
    TimeMetrics time;
    MemoryReport memory;
    double samplesPerSecond = 0; ///< m · micro_batch_size · dp per iteration
    double tokensPerSecond = 0;  ///< samples · seq_len
    double tflopsPerGpu = 0;     ///< model FLOPs (no recompute) per GPU and second, TFLOP/s
    double mfu = 0;              ///< tflopsPerGpu / peak_tflops
    /// Whether tflopsPerGpu and mfu describe this model on this GPU: analytic costs, or manual
    /// costs that imply at most the GPU's peak. Otherwise both are 0 and must not be shown as
    /// numbers (manual F = B = W = 1 ms on a 1.3B model would claim hundreds of % MFU), and
    /// `flopsNote` says why.
    bool flopsMeaningful = false;
    std::string flopsNote;
    double p2pBytes = 0;        ///< bytes all GPUs send point to point in one iteration
    double collectiveBytes = 0; ///< bytes all GPUs send in collectives in one iteration
};

struct Prediction {
    CostSetup setup;
    Schedule schedule; ///< with iteration tail
    /// The op index of `schedule`, built once by predict() and shared by every consumer
    /// (dependency highlights, critical path, idle causes, the lowering).
    std::shared_ptr<const OpIndex> index;
    Timeline timeline;
    ScheduleReport report;
};

/// Add the iteration tail to `schedule`, build its costs from `project`, simulate it and measure
/// the result. In unit mode syncs and optimizer steps take no time, so the papers' makespans hold
/// exactly. Throws ValidationError for a project the cost model cannot use (buildCostSetup) and
/// "schedule.deadlock" for a schedule that cannot run.
/// `control` (optional) gets the share done after each step and stops the work between steps
/// (Error "work.cancelled"): a million-op prediction takes about a second.
/// `memory` says whether the report keeps every device's memory curve or its peak only.
Prediction predict(const Project& project, const Schedule& schedule, const WorkControl* control = nullptr,
                   MemoryDetail memory = MemoryDetail::Curves);
/// The same, consuming `schedule` (it is not held twice while its tail is added).
Prediction predict(const Project& project, Schedule&& schedule, const WorkControl* control = nullptr,
                   MemoryDetail memory = MemoryDetail::Curves);

} // namespace stagecraft
