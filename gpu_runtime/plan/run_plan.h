#pragma once
// What stagecraft-run executes, built once on every rank from the same inputs (so no plan is
// sent around): the project (scaled), the prediction core makes for it, the lowered per-rank
// programs, and for this rank every instruction resolved to buffers, dependencies, durations and
// labels. Pure: no MPI, no device; the tests build plans for every registered schedule.

#include "eval/project_simulation.h"
#include "passes/program.h"
#include "plan/workload.h"

#include <string>
#include <vector>

namespace stagecraft::runtime {

enum class Workload : std::uint8_t { Model, Sleep };

/// "model", "sleep".
const char* workloadName(Workload workload);

struct RunRequest {
    std::string projectPath;       ///< empty: the built-in default project
    std::string schedule;          ///< registered name
    std::vector<std::string> sets; ///< "section.field=value"
    Workload workload = Workload::Model;
    double scale = 1; ///< shrinks hidden size, sequence length and vocabulary
};

/// The project with hidden size, sequence length and vocabulary multiplied by `scale` (hidden
/// kept a multiple of the heads, everything at least 1). Throws ValidationError("runtime.scale")
/// for a scale outside (0, 1].
Project scaledProject(Project project, double scale);

/// One instruction of this rank, resolved for the executor.
struct Step {
    Instruction instr;
    std::int32_t key = -1;           ///< activation buffer (dense index on this rank), -1: none
    bool allocate = false;           ///< the key's first instruction: allocate before it
    bool release = false;            ///< the key's last instruction: release after it
    std::int32_t shape = -1;         ///< index into RankPlan::shapes of the stage it works on
    std::vector<std::int32_t> after; ///< instructions (receives, syncs) whose completion it needs
    double sleepUs = 0;              ///< the predicted duration (sleep workload)
    std::string label; ///< "PP:2F0", "PP:0SEND_F1", "PP:1RECV_B0", "PP:0REDUCE_GRAD", "PP:0OPTIMIZER"
};

/// A stage this rank holds.
struct LocalStage {
    int pipe = 0;
    int stage = 0;
    StageShape shape;
};

struct RankPlan {
    int rank = 0;
    std::vector<Step> steps;        ///< the program, in order
    std::vector<LocalStage> stages; ///< the stages this rank holds (Step::shape indexes it)
    std::int32_t keys = 0;          ///< activation buffers used over an iteration
    std::vector<int> peers;         ///< ranks it sends to or receives from, ascending
};

struct RunPlan {
    Project project; ///< scaled
    std::string schedule;
    Workload workload = Workload::Model;
    Prediction prediction; ///< the schedule with its iteration tail, simulated
    Lowered lowered;
    std::uint64_t boundaryElements = 0; ///< elements of one activation crossing a stage boundary
};

/// Evaluates the request through core (the schedule's refusal becomes a ValidationError naming
/// its rule) and lowers the schedule with its iteration tail. The sleep workload needs times in
/// µs: unit costs are refused ("runtime.costs"); tensor parallelism is refused ("runtime.tp":
/// one device runs one pipeline rank).
RunPlan makeRunPlan(const RunRequest& request);

/// The lowered program of `rank` resolved: buffer keys and their lifetimes, what each compute,
/// optimizer step and wait waits for, durations and labels.
RankPlan makeRankPlan(const RunPlan& plan, int rank);

/// The stage's shape for the workload: its layers from the project's split, the last stage of
/// a pipe with the LM head.
StageShape stageShape(const Project& project, const Schedule& schedule, int stage);

} // namespace stagecraft::runtime
