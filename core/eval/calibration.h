#pragma once
// Calibrate a project from a measured trace: evaluate the schedule the trace is of, fit manual
// costs to the measurement (sim/calibration.h), evaluate again with them, and report the
// prediction's error before and after. stagecraft-cli calibrate and the app's Calibrate action
// call this.

#include "eval/evaluation.h"
#include "sim/calibration.h"

#include <string>

namespace stagecraft {

struct CalibrationReport {
    Project project;      ///< the request's project with the fitted costs (the schedule's pipeline)
    std::string schedule; ///< the schedule the trace was matched to
    CostFit fit;
    OverlayReport before; ///< the measurement against the prediction with the old costs
    OverlayReport after;  ///< ... and with the fitted ones
};

/// `request` must carry a trace. Throws ValidationError("overlay.mismatch") when the trace matches
/// no evaluated schedule (the message says why), ("calibrate.trace") when it cannot be fitted.
CalibrationReport calibrateFromTrace(const AnalysisRequest& request);

} // namespace stagecraft
