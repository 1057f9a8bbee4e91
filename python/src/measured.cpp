// A measured trace against a project's prediction, as `stagecraft-cli overlay` and `calibrate`
// do it: the trace (a Stagecraft trace, torch's per-rank profiler traces, an Nsight export ...)
// is read as one run, matched to the schedule of the same shape, and compared op by op; or the
// project's costs are fitted to it (list-scheduler calibration, docs/overlay.md).
#include "analysis.h"
#include "bindings.h"
#include "eval/calibration.h"
#include "eval/evaluation_input.h"
#include "eval/trace_read_options.h"
#include "ir/op_name.h"
#include "sim/overlay.h"

#include <pybind11/stl.h>

namespace stagecraft::python {

namespace {

AnalysisRequest requestWithTrace(const Project& project, const std::string& schedule,
                                 const std::vector<std::string>& traces, int iteration, bool median,
                                 const std::string& placement, bool projectTiming) {
    AnalysisRequest request;
    request.project = project;
    request.project.schedules = {schedule};
    // Read as the CLI reads `--iteration N` / `--median` (core's one translation).
    EvaluationInput reading;
    reading.traceIteration = iteration;
    reading.traceMedian = median;
    OptionValues given; // --placement's rule and message
    given.add("placement", placement);
    readTraceOptions(given, reading);
    std::vector<std::filesystem::path> paths(traces.begin(), traces.end());
    request.trace = loadMeasuredTrace(paths, measuredTraceOptions(reading));
    request.timingFromTrace = !projectTiming; // as --project-timing
    return request;
}

py::object optionalFloat(const std::optional<double>& value) {
    return value ? py::object(py::float_(*value)) : py::none();
}

/// Per device, as the CLI's device table: its op errors and where its time went (busy and idle,
/// predicted and measured, µs).
py::list deviceList(const OverlayBreakdown& b) {
    py::list devices;
    for (std::size_t d = 0; d < b.devices.size(); ++d) {
        const OverlayGroup& g = b.devices[d];
        const DeviceTime& time = b.deviceTimes[d];
        devices.append(py::dict(
            py::arg("device") = d, py::arg("ops") = g.ops,
            py::arg("mean_abs_duration_error") = g.meanAbsDurationError,
            py::arg("duration_ratio") = optionalFloat(g.durationRatio),
            py::arg("busy_predicted") = time.busyPredicted, py::arg("busy_measured") = time.busyMeasured,
            py::arg("idle_predicted") = time.idlePredicted, py::arg("idle_measured") = time.idleMeasured));
    }
    return devices;
}

/// Per op kind that was measured, as the CLI's kind table.
py::list kindList(const OverlayBreakdown& b) {
    py::list kinds;
    for (int k = 0; k < kOpKindCount; ++k) {
        const OverlayGroup& g = b.kinds[std::size_t(k)];
        if (g.ops == 0) continue;
        kinds.append(py::dict(py::arg("kind") = std::string(opKindName(OpKind(k))), py::arg("ops") = g.ops,
                              py::arg("mean_abs_duration_error") = g.meanAbsDurationError,
                              py::arg("duration_ratio") = optionalFloat(g.durationRatio)));
    }
    return kinds;
}

/// The ops whose duration drifted most, largest first, as the CLI's "drifted most" table (µs).
py::list driftList(const OverlayReport& r, const OverlayBreakdown& b, const Timeline& predicted,
                   const Timeline& measured) {
    py::list ops;
    for (const std::size_t k : b.mostDrift) {
        const OpDeviation& d = r.ops[k];
        const TimelineEvent& p = predicted.events[d.predictedEvent];
        ops.append(py::dict(
            py::arg("op") = opName(p.op, predicted.shape.splitBackward, predicted.shape.sequenceSlices),
            py::arg("device") = p.device, py::arg("predicted_duration") = p.duration(),
            py::arg("measured_duration") = measured.events[d.measuredEvent].duration(),
            py::arg("duration_error") = d.durationError, py::arg("start_error") = d.startError));
    }
    return ops;
}

py::dict overlayDict(const OverlayReport& r, const Timeline& predicted, const Timeline& measured) {
    py::dict out(py::arg("makespan_predicted") = r.makespanPredicted,
                 py::arg("makespan_measured") = r.makespanMeasured,
                 py::arg("makespan_error") = r.makespanError, py::arg("bubble_predicted") = r.bubblePredicted,
                 py::arg("bubble_measured") = r.bubbleMeasured,
                 py::arg("mean_abs_duration_error") = r.meanAbsDurationError,
                 py::arg("max_abs_duration_error") = r.maxAbsDurationError,
                 py::arg("mean_abs_start_error") = r.meanAbsStartError,
                 py::arg("max_abs_start_error") = r.maxAbsStartError, py::arg("matched_ops") = r.ops.size());
    if (r.worstOp >= 0 && std::size_t(r.worstOp) < r.ops.size()) {
        const std::size_t event = r.ops[std::size_t(r.worstOp)].predictedEvent;
        if (event < predicted.events.size())
            out["worst_op"] = opName(predicted.events[event].op, predicted.shape.splitBackward,
                                     predicted.shape.sequenceSlices);
    }
    const OverlayBreakdown b = breakdownOverlay(predicted, measured, r);
    out["devices"] = deviceList(b);
    out["kinds"] = kindList(b);
    out["most_drift"] = driftList(r, b, predicted, measured);
    return out;
}

} // namespace

void bindMeasured(py::module_& m) {
    m.def(
        "overlay",
        [](const Project& project, const std::string& schedule, const std::vector<std::string>& traces,
           int iteration, bool median, const std::string& placement, bool projectTiming) {
            const AnalysisRequest request =
                requestWithTrace(project, schedule, traces, iteration, median, placement, projectTiming);
            const AnalysisResult result = analyzeOrRaise(request);
            if (!result.overlay) throw ValidationError("overlay.mismatch", "trace", result.overlayError);
            return overlayDict(result.overlay->report,
                               result.outcomes[result.overlay->outcome].prediction.timeline,
                               *result.measured);
        },
        py::arg("project"), py::arg("schedule"), py::arg("traces"), py::arg("iteration") = -1,
        py::arg("median") = false, py::arg("placement") = "loop", py::arg("project_timing") = false,
        "A measured trace (one file, or a run's per-rank files) against the project's prediction of "
        "`schedule`: makespan, bubble and op errors, as `stagecraft-cli overlay` (makespan_error: the "
        "prediction's against the run, (predicted - measured) / measured; placement: how "
        "ranges named F{mb}.{chunk} give the stage, 'loop' or 'v', as --placement; project_timing: a "
        "stagecraft-run trace predicted with the project's costs.timing, as --project-timing).");
    m.def(
        "calibrate",
        [](const Project& project, const std::string& schedule, const std::vector<std::string>& traces,
           int iteration, bool median, double inputShare, bool runtimeModel, const std::string& placement) {
            const AnalysisRequest request =
                requestWithTrace(project, schedule, traces, iteration, median, placement, false);
            CalibrationOptions options;
            options.inputShare = inputShare;
            options.runtimeModel = runtimeModel;
            CalibrationReport report;
            {
                py::gil_scoped_release release;
                report = calibrateFromTrace(request, options);
            }
            py::dict summary(
                py::arg("schedule") = report.schedule,
                py::arg("before") = py::dict(py::arg("makespan_error") = report.before.makespanError,
                                             py::arg("bubble_predicted") = report.before.bubblePredicted,
                                             py::arg("bubble_measured") = report.before.bubbleMeasured),
                py::arg("after") = py::dict(py::arg("makespan_error") = report.after.makespanError,
                                            py::arg("bubble_predicted") = report.after.bubblePredicted,
                                            py::arg("bubble_measured") = report.after.bubbleMeasured),
                py::arg("after_list_scheduler") =
                    py::dict(py::arg("makespan_error") = report.listAfter.makespanError,
                             py::arg("bubble_predicted") = report.listAfter.bubblePredicted,
                             py::arg("bubble_measured") = report.listAfter.bubbleMeasured),
                py::arg("runtime_fit") = report.runtime
                                             ? py::object(py::str(describeRuntimeFit(*report.runtime)))
                                             : py::object(py::none()),
                py::arg("runtime_refusal") = report.runtimeRefusal.empty()
                                                 ? py::object(py::none())
                                                 : py::object(py::str(report.runtimeRefusal)),
                py::arg("timing") = report.runtime ? report.runtime->model
                                                   : std::string(timingName(report.project.costs.timing)),
                py::arg("note") = report.project.costs.note);
            return py::make_tuple(report.project, summary);
        },
        py::arg("project"), py::arg("schedule"), py::arg("traces"), py::arg("iteration") = -1,
        py::arg("median") = false, py::arg("input_share") = 0.5, py::arg("runtime_model") = true,
        py::arg("placement") = "loop",
        "Fits the project's manual costs to a measured trace of `schedule` and, from a torch profiler "
        "run, the runtime model, which the calibrated project keeps and times every schedule with (as "
        "`stagecraft-cli calibrate`; runtime_model=False: the list scheduler only): returns (calibrated "
        "Project, {before, after, after_list_scheduler, runtime_fit, runtime_refusal, note}).");
}

} // namespace stagecraft::python
