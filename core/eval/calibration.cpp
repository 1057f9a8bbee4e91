#include "eval/calibration.h"

#include "error.h"

namespace stagecraft {

namespace {

/// The evaluation with the trace matched, or the refusal why it did not match.
AnalysisResult evaluateMatched(const AnalysisRequest& request) {
    AnalysisResult result = analyze(request);
    if (!result.overlay) {
        std::string why = result.overlayError;
        if (why.empty() && !result.refusals.empty()) why = result.refusals.front().message;
        if (why.empty()) why = "no schedule was evaluated";
        throw ValidationError("overlay.mismatch", "trace", request.trace->path + ": " + why);
    }
    return result;
}

} // namespace

CalibrationReport calibrateFromTrace(const AnalysisRequest& request) {
    if (!request.trace)
        throw ValidationError("calibrate.trace", "trace", "calibration needs a measured trace");
    const AnalysisResult before = evaluateMatched(request);
    const ScheduleOutcome& outcome = before.outcomes[before.overlay->outcome];

    CalibrationReport report;
    report.schedule = outcome.name;
    report.before = before.overlay->report;
    // Host-timed runs (torch on CPU) send from the computing thread; GPU runs from a stream.
    const bool hostSends = request.trace->run && request.trace->run->clock == "cpu";
    report.fit = fitCosts(*request.trace->timeline, request.project.costs, hostSends);

    AnalysisRequest again = request;
    again.project.costs = report.fit.costs;
    const AnalysisResult after = evaluateMatched(again);
    report.after = after.overlay->report;
    // A schedule file runs on its own pipeline: the project written is fitted to it first, so that
    // the full-stage overrides name that pipeline's stages.
    report.project =
        outcome.imported ? projectForSchedule(request.project, outcome.prediction.schedule) : request.project;
    report.project.costs = report.fit.costs;
    return report;
}

} // namespace stagecraft
