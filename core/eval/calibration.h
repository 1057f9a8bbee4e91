#pragma once
// Calibrate a project from a measured trace: evaluate the schedule the trace is of, fit manual
// costs to the measurement (sim/calibration.h), evaluate again with them, and report the
// prediction's error before and after. stagecraft-cli calibrate and the app's Calibrate action
// call this.

#include "eval/evaluation.h"
#include "sim/calibration.h"

#include <optional>
#include <string>

namespace stagecraft {

struct CalibrationReport {
    /// The request's project with the fitted costs: its name, model, cluster, memory, schedules
    /// and the rest of its costs kept; a schedule file's pipeline (pp, micro-batches) when the
    /// trace matched one. `costs.note` says where the costs came from and which rule filled in
    /// what the trace did not measure.
    Project project;
    std::string schedule; ///< the schedule the trace was matched to
    CostFit fit;
    OverlayReport before; ///< the measurement against the prediction with the old project
    /// ... and with the project written: timed by its runtime fit when it has one, otherwise by
    /// the list scheduler with the fitted costs
    OverlayReport after;
    OverlayReport
        listAfter; ///< the list scheduler with the fitted costs (the same as `after` without a runtime fit)
    /// A torch profiler run is also fitted with the runtime model (eval/runtime_fit.h): the fit the
    /// project written keeps (Project::runtimeFit), so every schedule is predicted as torch runs it
    /// on the measured machine. Empty, with `runtimeRefusal` saying why, for a trace that cannot be
    /// fitted that way (another tool's trace, a run without torch's transfer actions).
    std::optional<RuntimeFitRecord> runtime;
    std::string runtimeRefusal;
    /// The transfer time the waits alone gave (`fit.costs.comm` before it was fitted to the
    /// timeline): the median delay of the dependencies a consumer waited for, which counts the
    /// runtime's posts, waits and gaps around a transfer as transfer.
    double commFromWaits = 0;
};

/// `request` must carry a trace. `options.inputShare` splits a backward the trace timed whole;
/// whether sends occupy the device is read off the trace (host clock: they do). Throws
/// ValidationError("overlay.mismatch") when the trace matches no evaluated schedule (the message
/// says why), what fitCosts throws when it cannot be fitted.
CalibrationReport calibrateFromTrace(const AnalysisRequest& request, const CalibrationOptions& options = {});

} // namespace stagecraft
