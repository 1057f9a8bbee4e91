#pragma once
// The runtime fit as a file (`*.fit.json`): fit once on a measured run, then predict other runs
// and schedules from the file without the traces (`stagecraft-cli fidelity --fit RUN -o F`, then
// `--costs F`). It records what the fit was made from and how well it reproduced that run, so a
// prediction made later can say what it rests on. A calibrated project embeds the same object as
// its `runtime_fit` (project/project.h). docs/fidelity.md gives the format.

#include "project/action_path_parts.h"
#include "project/runtime_costs.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace stagecraft {

inline constexpr int kRuntimeFitFormatVersion = 1;

/// What the fit's replay of its own run got wrong on the rank that ends the run last, µs,
/// predicted - measured (FidelityReport::criticalDelta and criticalPastRank): the parts add up to
/// the makespan error. `rank` -1: not known (a fit file written before these were kept).
struct ResidualParts {
    int rank = -1;
    double compute = 0, inputWait = 0, comm = 0, bookkeeping = 0, gaps = 0;
    double pastRank = 0; ///< how far the makespan runs past that rank's median time
    friend bool operator==(const ResidualParts&, const ResidualParts&) = default;
};

/// What decided the fitted run's makespan (eval/action_critical_path.h), as the run measured it and
/// as the fit's replay timed it: medians over the iterations and the draws.
struct FitCriticalPath {
    ActionPathParts measured, predicted;
    friend bool operator==(const FitCriticalPath&, const FitCriticalPath&) = default;
};

/// What a fit file holds besides the costs.
struct RuntimeFitRecord {
    RuntimeCosts costs;
    std::string model = "torch-gloo";
    std::string source;               ///< the run it was fitted on
    int iterations = 0;               ///< complete iterations read
    int ranks = 0, microbatches = 0;  ///< the fitted run's shape
    std::vector<std::string> notes;   ///< what could not be fitted and the rule used
    double residualMakespanError = 0; ///< the fitted run predicted from the fit
    double residualBubbleError = 0;
    ResidualParts residualParts;
    std::optional<FitCriticalPath> criticalPath; ///< absent in files written before it was kept
    friend bool operator==(const RuntimeFitRecord&, const RuntimeFitRecord&) = default;
};

/// One line on what `record` rests on, for every front end: "torch-gloo runtime model fitted to
/// FILES (8 iterations; its replay of that run: makespan 1.4 % long, bubble 2.8 points under)",
/// and where the replay is off by more than 2 %, the largest part of that on the rank that ends
/// last ("; the largest part: rank 0's waits for its inputs, 9.3 ms under the run's").
std::string describeRuntimeFit(const RuntimeFitRecord& record);

/// The parts as a fit file writes them (`residual.critical_delta_us`: compute, input_wait, comm,
/// bookkeeping, gaps, past_rank, µs), for every report that shows them.
nlohmann::ordered_json residualPartsJson(const ResidualParts& parts);

/// A critical path's parts as every report writes them (compute_us, transfers_us, comm_us,
/// waits_us, bookkeeping_us, gaps_us, hops): the fit file's `residual.critical_path` and the
/// fidelity report's `measured_critical_path` / `predicted_critical_path`.
nlohmann::ordered_json actionPathJson(const ActionPathParts& parts);

/// "the critical path, measured / predicted ms (medians): compute 35.68 / 37.02, transfers 18.94 /
/// 3.4 (22.0 / 29.0 hops), comm ..., waits not followed ..., bookkeeping ..., gaps ...", one line
/// for every front end.
std::string criticalPathText(const ActionPathParts& measured, const ActionPathParts& predicted);

/// The per-action costs as the fit file writes them (`actions_us`: gap, post_recv, post_send,
/// wait_send, reduce_grad, unshard, reshard), for every report that shows them.
nlohmann::ordered_json actionCostsJson(const ActionCosts& actions);

/// The fit as a JSON object, every number in µs (a cost not measured is null).
nlohmann::ordered_json runtimeFitJson(const RuntimeFitRecord& record);

/// runtimeFitJson, pretty-printed: a fit file.
std::string runtimeFitToJson(const RuntimeFitRecord& record);

/// Reads the object runtimeFitJson writes. Field paths in errors start with `prefix` ("" in a fit
/// file, "runtime_fit." in a project); otherwise as parseRuntimeFitJson.
RuntimeFitRecord runtimeFitFromJson(const nlohmann::json& object, const std::string& source,
                                    const std::string& prefix = {});

/// Reads a fit file. Malformed JSON is a ParseError("fit.json") with line and column; a missing or
/// wrong field a ValidationError("fit.field") naming the field, its value and the rule (costs
/// finite and >= 0, or null where not measured; at most 4096 stages; spreads of at most 4096
/// finite multipliers >= 0); another format version ("fit.version").
RuntimeFitRecord parseRuntimeFitJson(std::string_view text, const std::string& source);

} // namespace stagecraft
