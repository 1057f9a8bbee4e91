#include "eval/calibration.h"

#include "error.h"
#include "eval/runtime_fit.h"
#include "file_io.h"
#include "io/measured_trace.h"
#include "size_limits.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

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

std::string noteOf(const MeasuredTrace& trace, const std::string& schedule, const CostFit& fit) {
    std::string note = "calibrated from " + fileNamesOf(trace.path) + " (schedule " + schedule + ", " +
                       std::to_string(fit.samples) + " ops, " + std::to_string(fit.stages) +
                       " stages): per stage the median F, B, W, given to the layers the stage held";
    if (!fit.rule.empty()) note += "; " + fit.rule;
    if (!fit.sliceRule.empty()) note += "; " + fit.sliceRule;
    return note;
}

/// Sets `request`'s transfer time (costs.comm, one number per cross-device dependency) to the
/// one whose prediction starts the ops where the trace has them: the least mean absolute start
/// error over [0, 2 x the waits' estimate], by golden-section search (the error is close to
/// unimodal in it). The waits alone over-state it wherever the runtime posts, waits and pauses
/// around a transfer (torch's bursts of sends queue: 10 ms and more where the wire takes 0.1).
void fitCommToTimeline(AnalysisRequest& request) {
    auto error = [&](double comm) {
        request.project.costs.comm = comm;
        return evaluateMatched(request).overlay->report.meanAbsStartError;
    };
    const double start = request.project.costs.comm;
    double lo = 0, hi = std::max(2 * start, 1.0);
    constexpr double kGolden = 0.6180339887498949;
    double a = hi - kGolden * (hi - lo), b = lo + kGolden * (hi - lo);
    double fa = error(a), fb = error(b);
    for (int step = 0; step < 24 && hi - lo > 1e-3 * std::max(1.0, start); ++step) {
        if (fa <= fb) {
            hi = b;
            b = a;
            fb = fa;
            a = hi - kGolden * (hi - lo);
            fa = error(a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + kGolden * (hi - lo);
            fb = error(b);
        }
    }
    // Keep the waits' estimate unless the search found a better fit.
    const double found = fa <= fb ? a : b;
    request.project.costs.comm = std::min(fa, fb) < error(start) ? found : start;
}

/// The runtime fit of a trace of torch profiler files, or the reason there is none.
std::optional<RuntimeFitRecord> fitTorchRuntime(const MeasuredTrace& trace, std::string& refusal) {
    if (trace.files.empty()) {
        refusal = "the trace's files are not known";
        return std::nullopt;
    }
    for (const auto& file : trace.files)
        if (detectTraceFormat(file) != TraceFormat::Torch) {
            refusal = file.filename().string() +
                      " is not a torch profiler trace; the runtime model is fitted "
                      "to torch.distributed.pipelining runs";
            return std::nullopt;
        }
    try {
        return recordOf(fitRuntime(readTorchRun(trace.files), trace.path), trace.path);
    } catch (const Error& e) {
        refusal = e.message();
        return std::nullopt;
    }
}

} // namespace

CalibrationReport calibrateFromTrace(const AnalysisRequest& request, const CalibrationOptions& options) {
    if (!request.trace)
        throw ValidationError("calibrate.trace", "trace", "calibration needs a measured trace");
    const AnalysisResult before = evaluateMatched(request);
    const ScheduleOutcome& outcome = before.outcomes[before.overlay->outcome];

    CalibrationReport report;
    report.schedule = outcome.name;
    report.before = before.overlay->report;
    CalibrationOptions fitOptions = options;
    // Host-timed runs (torch on CPU) send from the computing thread; GPU runs from a stream.
    fitOptions.sendsOccupyDevice = request.trace->run && request.trace->run->clock == "cpu";
    report.fit = fitCosts(*request.trace->timeline, request.project, fitOptions);
    report.fit.costs.note = noteOf(*request.trace, report.schedule, report.fit);

    AnalysisRequest again = request;
    again.project.costs = report.fit.costs;
    again.project.runtimeFit.reset(); // the list scheduler's costs are fitted with the list scheduler
    report.commFromWaits = report.fit.costs.comm;
    fitCommToTimeline(again);
    report.fit.costs.comm = again.project.costs.comm;
    if (report.fit.costs.comm != report.commFromWaits)
        report.fit.costs.note +=
            "; the transfer time fitted to the measured op starts (the waits alone gave " +
            std::to_string(int(std::lround(report.commFromWaits))) + " us)";
    again.project.costs.note = report.fit.costs.note;
    const AnalysisResult after = evaluateMatched(again);
    report.listAfter = after.overlay->report;
    report.after = report.listAfter;
    report.project = request.project;
    if (outcome.imported) {
        // A schedule file runs on its own pipeline: the project written takes its pp, micro-batches
        // and chunks per device, so that the registered schedules run the shape that was measured.
        const Schedule& file = outcome.prediction.schedule;
        report.project = projectForSchedule(request.project, file);
        const int chunks = file.stagesPerPipe / std::max(1, file.devices);
        if (file.stagesPerPipe % std::max(1, file.devices) == 0 && chunks >= 2 &&
            chunks <= kMaxChunksPerDevice)
            report.project.parallel.chunks = chunks;
    }
    report.project.costs = report.fit.costs;
    // A run of stagecraft-run was predicted, and its transfer time fitted above, as that runtime
    // executes its programs: the project keeps that timing, so every other schedule is timed as
    // stagecraft-run would run it on the measured machine (the list scheduler, which delays each
    // transfer from its producer's end rather than from a receive posted when its buffer frees,
    // times interleaved and V schedules about 10 % short on such runs, docs/fidelity.md).
    if (const std::optional<Timing> timing =
            request.timingFromTrace ? traceTiming(*request.trace) : std::optional<Timing>()) {
        report.project.costs.timing = *timing;
        report.project.costs.note += "; timed as " + std::string(timingName(*timing)) +
                                     " executes its programs, as the run predicted itself";
    }
    if (options.runtimeModel) report.runtime = fitTorchRuntime(*request.trace, report.runtimeRefusal);
    report.project.runtimeFit = report.runtime;
    if (report.runtime) {
        AnalysisRequest timed = request;
        timed.project = report.project;
        timed.checks.reset(); // the project may have the file's shape now: its schedules are checked anew
        report.after = evaluateMatched(timed).overlay->report;
    }
    return report;
}

} // namespace stagecraft
