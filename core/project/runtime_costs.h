#pragma once
// What a runtime's actions cost on a measured machine (fitted by eval/runtime_fit.h, timed by
// passes/program_timing.h), and how the costs of one run carry over to another pipeline: another
// stage count cuts the model at other points, and a schedule that splits its backward needs I and
// W where the run timed a whole one (or the other way round). Plain data a project keeps
// (Project::runtimeFit); the runtime prediction and the generators that plan with costs read the
// same mapping. docs/fidelity.md.

#include "generators/registry.h"

#include <cstdint>
#include <vector>

namespace stagecraft {

/// µs a compute op of one stage takes: forward, whole backward, the input-gradient half (I) and
/// the weight-gradient half (W) of a split backward. A negative value is "not known" (a run whose
/// backward was not split measures no I and W).
struct StageCompute {
    double f = -1, b = -1, i = -1, w = -1;
    friend bool operator==(const StageCompute&, const StageCompute&) = default;
};

/// µs each non-compute action costs the rank's thread, and the framework's time between actions.
struct ActionCosts {
    double gap = 0;        ///< before every action: the framework's own time (Python, dispatch)
    double postRecv = 0;   ///< posting a receive (RECV_F / RECV_B)
    double postSend = 0;   ///< posting a send (SEND_F / SEND_B)
    double waitSend = 0;   ///< WAIT_SEND_* once its transfer is done
    double reduceGrad = 0; ///< REDUCE_GRAD (torch scales the stage's gradients by 1/m)
    double unshard = 0;    ///< UNSHARD
    double reshard = 0;    ///< RESHARD
    friend bool operator==(const ActionCosts&, const ActionCosts&) = default;
};

/// A point-to-point transfer: from the moment both ends are posted to its arrival.
struct TransferCosts {
    double latency = 0;   ///< µs
    double usPerByte = 0; ///< µs per byte (1 / bandwidth)
    double time(std::uint64_t bytes) const { return latency + double(bytes) * usPerByte; }
    friend bool operator==(const TransferCosts&, const TransferCosts&) = default;
};

/// How much one run's times vary about the costs, as multipliers of a cost (a measured time
/// divided by the cost it was fitted to), each list sorted. A timing with a seed draws every
/// instruction's time as cost x one of these, so the waits that variation causes (a consumer
/// waits for the slower of its producer and itself) are in the prediction: with means alone, a
/// pipeline's timing is too short whenever its ops' times vary. Empty lists: no variation.
struct CostSpread {
    std::vector<double> compute;  ///< of every compute op about its stage and kind's cost
    std::vector<double> gap;      ///< of the framework's time between two actions
    std::vector<double> post;     ///< of posting a send or a receive
    std::vector<double> transfer; ///< of a transfer about its time
    friend bool operator==(const CostSpread&, const CostSpread&) = default;
};

struct RuntimeCosts {
    std::vector<StageCompute> stages; ///< [stage] of one pipe
    ActionCosts actions;
    TransferCosts transfer;
    CostSpread spread;
    /// The processors the ranks share, or 0: every rank has its own (GPUs, a CPU core per rank).
    /// With fewer processors than busy ranks, each busy rank runs at cores / busy of its speed
    /// (processor sharing): CPU ranks oversubscribed on a machine slow each other down as much
    /// as the schedule makes them compute at once. Costs are then the work of an instruction on a
    /// processor of its own. A rank that waits for a transfer does not compete.
    double cores = 0;
    /// How fast each rank ran its weight gradients (W) in the fitted run, as its W time over its I
    /// time summed over its stages (a linear layer's input and weight gradients take the same
    /// FLOPs; torch's first stage, whose I computes nothing, is left out); NaN where the run shows
    /// none. torch's W runs at different speeds on different ranks (docs/fidelity.md), so a W
    /// that another schedule places on another rank takes that rank's speed (weightCostOn). Empty
    /// for a run that does not split its backward, and once the stages are remapped.
    std::vector<double> weightFactors; ///< [rank]
    std::vector<int> stageRanks;       ///< [stage]: the rank that ran it in the fitted run
    friend bool operator==(const RuntimeCosts&, const RuntimeCosts&) = default;
};

/// µs of stage `stage`'s W when rank `rank` runs it: the stage's W times the ratio of the two
/// ranks' weight factors (the rank that ran it in the fitted run, and `rank`); the stage's W
/// unchanged where either factor is unknown. Negative when the W is not known.
double weightCostOn(const RuntimeCosts& costs, int stage, int rank);

/// The costs of `costs` for a model cut into `stages` equal stages instead: each new stage gets the
/// share of the old stages' costs its part of the model covers (costs spread evenly inside an old
/// stage). The identity when the count is the same.
RuntimeCosts remapStages(const RuntimeCosts& costs, int stages);

/// Completes what a split backward needs from a run that did not split it, by torch's rules:
/// stage 0's I computes nothing and its W is the whole backward; elsewhere I = `inputShare` x B and
/// W = B - I. Stages that already have I and W keep them.
RuntimeCosts splitBackwardCosts(const RuntimeCosts& costs, double inputShare);

/// Fills a missing whole backward from a split run: B = I + W, the W at the speed of the rank whose
/// W over I is lowest (weightFactors; a split W runs slower on some ranks, a whole backward's
/// weight half did not on the recorded runs). Without weight factors, B = I + W.
RuntimeCosts wholeBackwardCosts(const RuntimeCosts& costs);

/// `costs` with every known compute cost (F, B, I, W of every stage) times `factor`: the same
/// machine running its ops `factor` times as long, the actions and transfers unchanged.
RuntimeCosts scaledCompute(const RuntimeCosts& costs, double factor);

/// The share of a whole backward a split schedule's I takes where the fit measured no split (the
/// rest is W; torch's first stage: I = 0): the default of every prediction from a fit.
inline constexpr double kFittedInputShare = 0.5;

/// What a cost-aware generator plans a `stages`-stage pipeline with under `costs`: each stage's
/// F, I and W (a whole backward split by splitBackwardCosts), I and W at least 1 µs (generators
/// need positive costs; torch's first stage has an I of almost nothing).
std::vector<StageCost> plannedStageCosts(const RuntimeCosts& costs, int stages, double inputShare);

} // namespace stagecraft
