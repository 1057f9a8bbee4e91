#include "eval/work_estimate.h"

#include "eval/schedule_checks.h"
#include "generators/registry.h"
#include "number_text.h"

namespace stagecraft {

WorkEstimate estimateWork(const AnalysisRequest& request) {
    return estimateWork(request, *checksOf(request));
}

WorkEstimate estimateWork(const AnalysisRequest& request, const ScheduleChecks& checks) {
    WorkEstimate estimate;
    for (const std::string& name : request.project.schedules)
        if (const CheckedSchedule* c = checks.find(name)) {
            estimate.ops += c->ops;
            estimate.effortOps += c->effortOps;
        }
    for (const ImportedSchedule& s : request.imported)
        if (s.checked) {
            estimate.ops += s.schedule.opCount();
            estimate.effortOps += double(s.schedule.opCount());
        }
    estimate.bytes = double(estimate.ops) * kAnalysisBytesPerOp;
    return estimate;
}

double scheduleEffortOps(const Project& project, const GeneratorInfo& info) {
    return checkSchedule(project, info).effortOps;
}

WorkDecision judgeWork(const WorkEstimate& estimate, double machineBytes) {
    WorkDecision decision;
    const std::string what = groupedInteger(estimate.ops) + " ops, about " + gibText(estimate.bytes);
    if (machineBytes > 0 && estimate.bytes > kMaxWorkMemoryShare * machineBytes) {
        decision.verdict = WorkVerdict::Refuse;
        decision.message = "the schedules would have " + what + " of memory to analyse, more than " +
                           gibText(kMaxWorkMemoryShare * machineBytes) + " (half of this machine's " +
                           gibText(machineBytes) +
                           "); reduce parallel.microbatches, parallel.pp or the chunks";
    } else if (estimate.ops > kConfirmWorkOps) {
        decision.verdict = WorkVerdict::Confirm;
        decision.message = "the schedules would have " + what +
                           " of memory to analyse; this takes a while (it runs in the background and "
                           "can be cancelled)";
    }
    return decision;
}

} // namespace stagecraft
