#pragma once
// What stagecraft-run executes, built once on every rank from the same inputs (so no plan is
// sent around): the project (scaled), the prediction core makes for it, the lowered per-rank
// programs, and for this rank every instruction resolved to buffers, dependencies, durations and
// labels. Pure: no MPI, no device; the tests build plans for every registered schedule.

#include "eval/project_simulation.h"
#include "passes/post_queues.h"
#include "passes/program.h"
#include "plan/workload.h"

#include <string>
#include <vector>

namespace stagecraft::runtime {

enum class Workload : std::uint8_t { Model, Sleep };

/// "model", "sleep".
const char* workloadName(Workload workload);

struct RunRequest {
    std::string projectPath; ///< empty: the built-in default project
    std::string schedule;    ///< registered name (empty with a schedule file)
    /// A schedule file instead of a registered name: torch's compute-only CSV or Stagecraft
    /// schedule JSON, read and validated by core (eval/evaluation_input.h) and run on the costs,
    /// model and cluster of the project (`projectPath`, or the built-in one).
    std::string scheduleFile;
    std::vector<std::string> sets; ///< "section.field=value"
    Workload workload = Workload::Model;
    double scale = 1; ///< shrinks hidden size, sequence length and vocabulary
};

/// The project with hidden size, sequence length and vocabulary multiplied by `scale` (hidden
/// kept a multiple of the heads, everything at least 1). Throws ValidationError("runtime.scale")
/// for a scale outside (0, 1].
Project scaledProject(Project project, double scale);

/// One instruction of this rank, resolved for the executor.
///
/// Memory follows the lowering's buffer plan: each (pipe, stage, micro-batch) holds one activation
/// buffer from its first instruction to its last (the lowering's lifetimes, `Lowered::buffers`),
/// and the rank's buffers are `Lowered::peakBuffers[rank]` slots allocated once per run and handed
/// from one micro-batch to the next (last-in first-out, as the lowering counts them). A slot is
/// reused only after every transfer posted on it before has completed (the executor waits).
/// The input gradient a SEND_B sends is the backward's own output, which outlives the lowering's
/// buffer: the backward writes it into one of a few gradient send buffers instead.
struct Step {
    Instruction instr;
    std::int32_t key = -1;   ///< the (pipe, stage, mb) buffer (dense index on this rank), -1: none
    std::int32_t slot = -1;  ///< the slot that holds the key's buffer, -1: none
    bool take = false;       ///< the key's first instruction: its slot is taken before it
    bool giveBack = false;   ///< the key's last instruction: its slot is given back after it
    std::int32_t shape = -1; ///< index into RankPlan::stages of the stage it works on
    /// Instructions whose completion it needs: receives and syncs; for a recompute (R), the send of
    /// its forward's output, which it writes again.
    std::vector<std::int32_t> after;
    /// Recv: the first instruction before which it may be posted (its slot is free, or held by its
    /// own micro-batch, from there on). Send: the instruction after the compute that produced its
    /// tensor. Its own index at the latest. (Used where posting never blocks: MPI.)
    std::int32_t postFrom = -1;
    /// Compute B whose input gradient a SEND_B sends: true (it goes to a gradient send buffer).
    /// SEND_B: the index of that B.
    bool producesSentGradient = false;
    std::int32_t gradientOf = -1;
    double sleepUs = 0; ///< the predicted duration (sleep workload)
    /// A compute of a sequence slice (model workload): the key-value buffer of its micro-batch on
    /// the stage, taken before its first slice's first compute and given back after the last
    /// compute of its slices (plan/workload.h); -1: none.
    std::int32_t keyValueBuffer = -1;
    bool takeKeysValues = false;
    bool giveBackKeysValues = false;
    std::string label; ///< "PP:2F0", "PP:0SEND_F1", "PP:1RECV_B0", "PP:0REDUCE_GRAD", "PP:0OPTIMIZER"
};

/// A stage this rank holds.
struct LocalStage {
    int pipe = 0;
    int stage = 0;
    StageShape shape;
    /// A schedule of sequence slices: the shape of each slice (slice q of a slice unit mb is
    /// mb % slices); empty otherwise.
    std::vector<StageShape> slices = {};

    /// The shape an instruction on slice unit `mb` works on.
    const StageShape& shapeOf(int mb) const {
        return slices.empty() || mb < 0 ? shape : slices[std::size_t(mb) % slices.size()];
    }
};

struct RankPlan {
    int rank = 0;
    std::vector<Step> steps;        ///< the program, in order
    std::vector<LocalStage> stages; ///< the stages this rank holds (Step::shape indexes it)
    std::int32_t keys = 0;          ///< (pipe, stage, mb) buffers used over an iteration
    std::int32_t slots = 0;         ///< slots the keys share: Lowered::peakBuffers[rank]
    std::uint64_t slotElements = 0; ///< elements of one slot: the largest buffer of the rank's stages
    /// Gradient send buffers (each one boundary): most input gradients held between a B and the
    /// completion of its SEND_B, counting one send still in flight.
    std::int32_t gradientBuffers = 0;
    /// Key-value buffers of sliced micro-batches (model workload): the most held at once, each of
    /// `keyValueElements` (the largest of the rank's stages).
    std::int32_t keyValueBuffers = 0;
    std::uint64_t keyValueElements = 0;
    /// Its sends and receives per peer, in the order it posts them (core's rule, which the
    /// prediction of the run times: passes/post_queues.h).
    PostQueues sends, receives;
};
struct RunPlan {
    Project project; ///< scaled
    std::string schedule;
    Workload workload = Workload::Model;
    Prediction prediction; ///< the schedule with its iteration tail, simulated
    Lowered lowered;
    std::uint64_t boundaryElements =
        0; ///< elements of one activation crossing a stage boundary (the longest slice's)
    /// The tokens of each sequence slice (core's cut, sequenceSliceLengths); one entry, the whole
    /// sequence, for a schedule without slices.
    std::vector<int> sliceLengths;
};

/// Evaluates the request through core (the schedule's refusal becomes a ValidationError naming
/// its rule; a schedule file's errors name the file, its line and cell or the rule it breaks) and lowers the
/// schedule with its iteration tail. The sleep workload needs times in µs: unit costs are refused
/// ("runtime.costs"); tensor parallelism is refused ("runtime.tp": one device runs one pipeline rank).
RunPlan makeRunPlan(const RunRequest& request);

/// The lowered program of `rank` resolved: buffer keys, their lifetimes and slots, how early each
/// receive may be posted, what each compute, optimizer step and wait waits for, durations and
/// labels (plan/rank_plan.cpp, in named steps). Throws std::logic_error when the slots it assigns
/// differ from the lowering's count.
RankPlan makeRankPlan(const RunPlan& plan, int rank);

/// The ranks `plan`'s rank sends to or receives from, ascending.
std::vector<int> peersOf(const RankPlan& plan);

/// Data parallelism: `replicas` copies of the pipeline on `replicas * P` ranks (P = the lowering's
/// ranks), replica k on ranks k·P .. k·P + P - 1, each running its pipeline rank's program. The
/// program of world rank `worldRank`: its pipeline rank's, with every peer moved into its replica.
RankPlan replicaRankPlan(const RunPlan& plan, int worldRank, int replicas);

/// Every gradient-sync collective over all replicas: the lowering's collective (the ranks of one
/// pipeline that hold a stage) joined by the same ranks of every other replica, as the gradient
/// reduction among data-parallel replicas is placed (one all-reduce per stage).
std::vector<std::vector<int>> replicaCollectives(const Lowered& lowered, int replicas);

/// The stage's shape for the workload: its layers from the project's split, the last stage of
/// a pipe with the LM head.
StageShape stageShape(const Project& project, const Schedule& schedule, int stage);

/// Elements of one activation buffer of `stage` for the plan's workload: the stage's whole
/// activation layout (model), or one activation and one gradient of a boundary (sleep).
std::uint64_t activationElements(const RunPlan& plan, const StageShape& shape);

} // namespace stagecraft::runtime
