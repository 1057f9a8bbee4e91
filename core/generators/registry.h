#pragma once
// The one table of schedule generators. The GUI, the CLI, the runtime and the tests look
// schedules up here by name; forms and flags come from each entry's parameter specs.

#include "generators/schedule_params.h"
#include "ir/schedule.h"
#include "work_control.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

/// One parameter a generator reads, with the range this generator accepts (a schedule may narrow
/// the parameter's own range, e.g. chunks >= 2), its default and help text.
struct ParamSpec {
    std::string_view name;  ///< "pp", "microbatches", "chunks"
    std::string_view field; ///< project-file path: "parallel.pp", ...
    int min;
    int max;
    int defaultValue;
    std::string_view help;
    const ScheduleParamField* param; ///< the parameter's row
};

/// The costs of one stage's ops that a cost-aware generator plans with, in µs (or units).
struct StageCost {
    double f = 1; ///< forward
    double b = 1; ///< input gradient (the whole backward costs b + w)
    double w = 1; ///< weight gradient
    friend bool operator==(const StageCost&, const StageCost&) = default;
};

/// Everything a generator may read: the order's parameters and, for generators whose order
/// depends on them (`GeneratorInfo::usesCosts`), what the ops cost and how much activation
/// memory a device may hold.
struct GenerateRequest {
    ScheduleParams params;
    /// Per stage of one pipe, in forward order; empty means unit costs (F = B = W = 1).
    std::vector<StageCost> stageCosts;
    double comm = 0; ///< one transfer between devices, in the unit of the stage costs
    /// Activation memory one device may hold, in full-stage micro-batch activations (M_a: what
    /// one micro-batch leaves behind in one of p equal stages); 0 means no limit.
    double memoryLimit = 0;
    /// Share of a forward's activations that B keeps for W (M_W / M_B; B frees the rest, W frees
    /// this). 1 keeps everything until W, the papers' unit count.
    double keptForW = 1;
    /// The iteration ends at each device's own last op (costs.optimizer_sync = post-validation):
    /// searches then minimise the largest device span alone. With a flush (false) the makespan is
    /// the iteration time, and zb-v keeps its handcrafted order's makespan as a cap.
    bool postValidation = false;
    /// Progress and Cancel for generators that search (zb-auto, zb-v under unequal costs); they
    /// throw Error "work.cancelled" when its flag stops them. nullptr: run to the end.
    const WorkControl* control = nullptr;

    /// Costs of `stage` (unit costs when none are given).
    StageCost cost(int stage) const;
};

struct GeneratorInfo {
    std::string_view name;        ///< registry name: "1f1b"
    std::string_view title;       ///< "1F1B (PipeDream-Flush)"
    std::string_view summary;     ///< one sentence for lists and tooltips
    std::string_view constraints; ///< the rules, in words ("m % p == 0")
    std::span<const ParamSpec> params;
    bool splitBackward; ///< B/W split (zero-bubble family)
    int pipes;          ///< 2 for bidirectional schedules
    /// The order depends on the request's costs and memory limit, not only on its parameters:
    /// front ends must pass them and regenerate when they change.
    bool usesCosts;
    /// Stages of one pipe for these parameters (p, p*v, 2p ...).
    int (*stagesPerPipe)(const ScheduleParams&);
    /// Throws ValidationError naming the field, the value and the rule when the parameters do not
    /// suit this schedule. Called before `generate`.
    void (*check)(const ScheduleParams&);
    /// Called with a request whose parameters passed `check` and whose costs passed checkRequest.
    Schedule (*generate)(const GenerateRequest&);
    /// Every (stage, micro-batch) is recomputed: one R op each, besides its F, B (and W).
    bool recomputes = false;
};

/// Compute ops of one (stage, micro-batch) in `info`'s schedules: F and B, W when the backward is
/// split, R when it recomputes. Op-count estimates and limits multiply by it.
constexpr int opsPerStageMicrobatch(const GeneratorInfo& info) {
    return (info.splitBackward ? 3 : 2) + (info.recomputes ? 1 : 0);
}

/// True when `info`'s schedules read `param` (the others ignore it: effectiveParams sets it to 1).
bool readsParam(const GeneratorInfo& info, const ScheduleParamField& param);

/// Compute ops `info` generates for `params` (effective ones: effectiveParams): every
/// micro-batch, or with sequence slices every slice unit, runs once through the stages of one
/// pipe. Op-count estimates and limits take it.
double computeOpCount(const GeneratorInfo& info, const ScheduleParams& params);

/// Every registered generator, in the order the GUI and `list` show them.
std::span<const GeneratorInfo> generators();

/// Case-insensitive lookup; an unknown name throws ValidationError listing the valid names.
const GeneratorInfo& findGenerator(std::string_view name);
/// The same lookup without the error: nullptr for an unknown name.
const GeneratorInfo* tryFindGenerator(std::string_view name);

/// Check the common ranges and the generator's own constraints (throws ValidationError).
void checkParams(const GeneratorInfo& info, const ScheduleParams& params);
/// How many times checkParams has run in this process (any thread): tests count the checks one
/// edit makes (eval/schedule_checks.h checks each schedule once per edit).
std::uint64_t paramCheckCount();

/// The message of the first rule `params` break for `info`, if any (for forms and sweeps).
std::optional<std::string> constraintViolation(const GeneratorInfo& info, const ScheduleParams& params);

/// Throws ValidationError when the request's costs or memory limit cannot be planned with:
/// "generator.costs" (stage costs given but not one per stage of this schedule, or not finite and
/// positive; comm negative or not finite), "generator.memory" (limit negative or not finite).
void checkRequest(const GeneratorInfo& info, const GenerateRequest& request);

/// The parameters `info` reads, with those it ignores reset (chunks = 1 for schedules without
/// chunks), so equal orders have equal parameters.
ScheduleParams effectiveParams(const GeneratorInfo& info, const ScheduleParams& params);

/// Check (parameters and request, once) and generate. The result is not re-validated here
/// (tests and the CLI do).
Schedule generateSchedule(const GeneratorInfo& info, const GenerateRequest& request);

/// Generate from a request whose parameters already passed checkParams (as effectiveParams) and
/// whose costs passed checkRequest: for callers that check once and report the refusal
/// themselves (the evaluation layer), so the rules run once per evaluation.
Schedule generateChecked(const GeneratorInfo& info, const GenerateRequest& request);

/// Look up, check, generate with unit costs and no memory limit.
Schedule generateSchedule(std::string_view name, const ScheduleParams& params);

} // namespace stagecraft
