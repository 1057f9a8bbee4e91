#pragma once
// One pass of "regenerate + simulate" for the GUI, as a pure function of its inputs so that it
// runs on a worker thread and in tests without a window. All schedule logic is core's: this only
// decides which schedules to ask core for and collects the answers (and the errors) per schedule.

#include "project/project.h"
#include "sim/overlay.h"
#include "sim/project_simulation.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stagecraft::gui {

/// A schedule read from a file (torch CSV or schedule JSON), shown like a registered one.
struct ImportedSchedule {
    std::string name; ///< shown in the picker and the chart ("file.csv")
    std::string path;
    Schedule schedule;
    bool checked = true;
};

/// A measured trace to overlay on the prediction of the schedule it belongs to.
struct MeasuredTrace {
    std::string path;
    std::shared_ptr<const Timeline> timeline; ///< shared: requests are copied on every edit
};

struct AnalysisRequest {
    Project project;
    std::vector<ImportedSchedule> imported; ///< checked ones are analysed
    std::optional<MeasuredTrace> trace;
};

struct ScheduleOutcome {
    std::string name;  ///< registry name or imported name
    std::string title; ///< chart panel title
    Prediction prediction;
};

struct ScheduleFailure {
    std::string name;
    std::string message; ///< core's message
};

struct OverlayOutcome {
    std::size_t outcome = 0; ///< index into AnalysisResult::outcomes of the matched schedule
    OverlayReport report;
};

struct AnalysisResult {
    std::vector<ScheduleOutcome> outcomes; ///< in the order the project lists them, imported last
    std::vector<ScheduleFailure> failures; ///< schedules that could not be generated or simulated
    std::optional<OverlayOutcome> overlay;
    std::shared_ptr<const Timeline> measured; ///< the matched trace (set with `overlay`)
    std::string measuredPath;                 ///< its file
    std::string overlayError;                 ///< why the trace matched no shown schedule ("" when it did)
    std::size_t opCount = 0;                  ///< compute ops over all outcomes
};

/// Registered schedules of the project that can run with its parameters, and why the others
/// cannot (constraint or layer split), in registry order.
struct ScheduleAvailability {
    std::string name;
    std::optional<std::string> problem;
};
std::vector<ScheduleAvailability> scheduleAvailability(const Project& project);

/// Rough op count of the request, to decide between computing in place and on a worker.
std::size_t estimateOpCount(const AnalysisRequest& request);

/// Generate, simulate and measure every checked schedule; match the trace, if any, with the
/// schedule of the same name. Never throws for a bad schedule: it becomes a failure.
AnalysisResult analyze(const AnalysisRequest& request);

} // namespace stagecraft::gui
