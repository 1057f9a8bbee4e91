#pragma once
// A project's registered schedules checked once: each schedule's parameters against its rules and
// the model's layers against its stages, into values that every later step reads (the picker's
// greyed rows, the work estimate, analyze()). Before this a GUI edit checked each schedule's
// parameters about nine times, the work estimate signalling a broken rule by throwing.

#include "eval/evaluation.h"
#include "generators/registry.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace stagecraft {

/// One registered schedule with one project's parameters.
struct CheckedSchedule {
    const GeneratorInfo* info = nullptr;
    ScheduleParams params{0, 0, 0}; ///< effectiveParams of the project's parameters
    bool paramsOk = false;          ///< the parameters keep the schedule's rules (checkParams)
    /// Why the schedule cannot run with this project (parameters first, then the layer split).
    std::optional<ScheduleRefusal> problem;
    std::size_t ops = 0;  ///< compute ops it would generate (0 when the parameters break a rule)
    double effortOps = 0; ///< ops, times kSearchEffortPerOp for an order searched for the costs
};

/// Every registered schedule checked for one project, in registry order.
struct ScheduleChecks {
    std::vector<CheckedSchedule> schedules;
    /// The check of registered schedule `name` (case-insensitive as the registry), or nullptr.
    const CheckedSchedule* find(std::string_view name) const;
};

/// Checks one registered schedule: checkParams once, then the layer split when they pass.
CheckedSchedule checkSchedule(const Project& project, const GeneratorInfo& info);

/// Checks every registered schedule for `project` (what a front end's schedule picker shows).
std::shared_ptr<const ScheduleChecks> checkSchedules(const Project& project);

/// The request's own checks when a front end set them (checked once per edit, for the picker,
/// the work estimate and the analysis alike), else the project's registered schedules checked now.
std::shared_ptr<const ScheduleChecks> checksOf(const AnalysisRequest& request);

} // namespace stagecraft
