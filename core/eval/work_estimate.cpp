#include "eval/work_estimate.h"

#include "generators/registry.h"
#include "text/quantity_text.h"

namespace stagecraft {

WorkEstimate estimateWork(const AnalysisRequest& request) {
    WorkEstimate estimate;
    estimate.ops = estimateOpCount(request);
    estimate.bytes = double(estimate.ops) * kAnalysisBytesPerOp;
    for (const std::string& name : request.project.schedules)
        if (const GeneratorInfo* info = tryFindGenerator(name))
            estimate.effortOps += scheduleEffortOps(request.project, *info);
    for (const ImportedSchedule& s : request.imported)
        if (s.checked) estimate.effortOps += double(s.schedule.opCount());
    return estimate;
}

double scheduleEffortOps(const Project& project, const GeneratorInfo& info) {
    return double(estimateOpCount(project, info)) * (info.usesCosts ? kSearchEffortPerOp : 1);
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
