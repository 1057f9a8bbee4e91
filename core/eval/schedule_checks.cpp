#include "eval/schedule_checks.h"

#include "error.h"
#include "eval/work_estimate.h"
#include "project/project.h"

#include <algorithm>

namespace stagecraft {

const CheckedSchedule* ScheduleChecks::find(std::string_view name) const {
    const GeneratorInfo* info = tryFindGenerator(name);
    if (!info) return nullptr;
    const auto it = std::find_if(schedules.begin(), schedules.end(),
                                 [&](const CheckedSchedule& c) { return c.info == info; });
    return it == schedules.end() ? nullptr : &*it;
}

CheckedSchedule checkSchedule(const Project& project, const GeneratorInfo& info) {
    CheckedSchedule c;
    c.info = &info;
    c.params = effectiveParams(info, scheduleParams(project));
    // The one conversion of a broken rule into a value: the generators' rules throw (their
    // interface), and nothing after this catches for control flow.
    try {
        checkParams(info, c.params);
        c.paramsOk = true;
    } catch (const Error& e) {
        c.problem = scheduleRefusal(std::string(info.name), RefusalStage::Parameters, e);
        return c;
    }
    // Every micro-batch runs once through the S stages of one pipe, whatever the pipe count.
    c.ops = std::size_t(computeOpCount(info, c.params));
    c.effortOps = double(c.ops) * (info.usesCosts ? kSearchEffortPerOp : 1);
    try {
        checkLayersFit(project, info);
    } catch (const Error& e) {
        c.problem = scheduleRefusal(std::string(info.name), RefusalStage::Fit, e);
    }
    return c;
}

std::shared_ptr<const ScheduleChecks> checkSchedules(const Project& project) {
    auto checks = std::make_shared<ScheduleChecks>();
    for (const GeneratorInfo& info : generators()) checks->schedules.push_back(checkSchedule(project, info));
    return checks;
}

std::shared_ptr<const ScheduleChecks> checksOf(const AnalysisRequest& request) {
    if (request.checks) return request.checks;
    auto checks = std::make_shared<ScheduleChecks>();
    for (const std::string& name : request.project.schedules)
        if (const GeneratorInfo* info = tryFindGenerator(name); info && !checks->find(name))
            checks->schedules.push_back(checkSchedule(request.project, *info));
    return checks;
}

} // namespace stagecraft
