#pragma once
// The one evaluation entry point every front end calls (desktop app, stagecraft-cli, the headless
// exporter; later the viewer, the search and the runtime): a project, schedules imported from
// files and an optional measured trace go in; per schedule either its outcome (prediction,
// metrics, memory and the op index, built once and kept) or a structured refusal comes out.
// Front ends decide what to show; they never re-derive which schedules can run or how an imported
// schedule fits the project.

#include "eval/project_simulation.h"
#include "generators/registry.h"
#include "io/chrome_trace.h"
#include "io/measured_run.h"
#include "ir/op_index.h"
#include "project/project.h"
#include "sim/overlay.h"

#include <atomic>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace stagecraft {

struct ScheduleChecks; // eval/schedule_checks.h

/// A schedule read from a file (torch CSV or schedule JSON), evaluated like a registered one.
struct ImportedSchedule {
    std::string name; ///< shown in pickers, tables and the chart ("file.csv")
    std::string path;
    Schedule schedule;
    bool checked = true; ///< evaluated only when checked
};

/// A measured trace to overlay on the prediction of the schedule it belongs to.
struct MeasuredTrace {
    std::string path;                         ///< its files, ", " between them
    std::shared_ptr<const Timeline> timeline; ///< shared: requests are copied on every edit
    TraceInfo info = {}; ///< the iterations the file holds, the one read, the run that measured it
    /// Traces of other tools (torch profiler, Nsight Systems): ranks, clocks and the time the
    /// communication spent waiting for the peer.
    std::optional<MeasuredRunInfo> run = {};
    std::vector<std::filesystem::path> files = {}; ///< the files of `path`, to read again (calibration)
};

struct AnalysisRequest {
    Project project;                        ///< its `schedules` are evaluated, in order
    std::vector<ImportedSchedule> imported; ///< the checked ones are evaluated after them
    std::optional<MeasuredTrace> trace;
    /// Set by a front end to stop the analysis early: checked before each schedule, between the
    /// steps of each prediction and between the candidates of a generator's search. The result is
    /// then marked `cancelled` and holds only the schedules done before.
    std::shared_ptr<const std::atomic<bool>> cancel;
    /// Called on the analysing thread with the share of the work done (0..1, by each schedule's
    /// estimated effort, estimateWork) and the schedule being worked on.
    std::function<void(double fraction, const std::string& schedule)> progress;
    /// Whether the reports keep every device's memory curve (charts, exports) or only the
    /// figures (the CLI's tables and JSON print peaks: a curve costs 16 bytes per op).
    MemoryDetail memory = MemoryDetail::Curves;
    /// The project's registered schedules checked once (eval/schedule_checks.h's checkSchedules),
    /// set by a front end that already checked them for this project; null: analyze() and
    /// estimateWork check the request's schedules themselves. They depend on the parallel and
    /// model settings only: whoever changes those in a copy of a request resets them.
    std::shared_ptr<const ScheduleChecks> checks = {};
    /// A trace stagecraft-run wrote says how the run predicted itself (traceTiming): the project is
    /// then timed that way, and a calibration on it keeps that timing. False: the project's own
    /// costs.timing, to see what another timing would have said of the same run.
    bool timingFromTrace = true;
};

/// At which step a schedule was refused.
enum class RefusalStage : std::uint8_t {
    Lookup,     ///< the name is not a registered schedule
    Parameters, ///< the parameters break the schedule's rules (a picker shows these greyed out)
    Fit,        ///< the project's model cannot be cut into the schedule's stages
    Evaluation, ///< generation, cost model or simulation refused it (deadlock, costs ...)
};

/// Why a schedule has no outcome: core's error id (docs/errors.md), the field it concerns, and
/// the message that names the value and the rule.
struct ScheduleRefusal {
    std::string name; ///< registry name or imported name
    RefusalStage stage = RefusalStage::Evaluation;
    std::string id;      ///< "generator.constraint", "project.layers", "schedule.deadlock" ...
    std::string field;   ///< "parallel.microbatches", "model.layers" ... ("" when none)
    std::string message; ///< without the "[id] " prefix
};

struct ScheduleOutcome {
    std::string name;  ///< registry name or imported name
    std::string title; ///< chart panel title
    bool imported = false;
    Prediction prediction;
    /// The op index of `prediction.schedule`, built once here; consumers (dependency highlights,
    /// critical path, overlays, the lowering) read it instead of building their own.
    std::shared_ptr<const OpIndex> index;
};

struct OverlayOutcome {
    std::size_t outcome = 0; ///< index into AnalysisResult::outcomes of the matched schedule
    OverlayReport report;
};

struct AnalysisResult {
    std::vector<ScheduleOutcome> outcomes; ///< in the order the project lists them, imported last
    std::vector<ScheduleRefusal> refusals; ///< in the same order
    std::optional<OverlayOutcome> overlay;
    std::shared_ptr<const Timeline> measured; ///< the matched trace (set with `overlay`)
    std::string measuredPath;                 ///< its file(s), ", " between them
    /// How the run's iterations varied (io/measured_run.h's iterationSpreadText; "" when unknown).
    std::string measuredSpread;
    std::string overlayError; ///< why the trace matched no shown schedule ("" when it did)
    std::size_t opCount = 0;  ///< compute ops over all outcomes
    bool cancelled = false;   ///< the request's cancel flag stopped it

    /// The refusal of `name`, or nullptr.
    const ScheduleRefusal* refusalOf(const std::string& name) const;
};

/// A refusal of schedule `name` at `stage` from the error core threw: its id, field and message
/// (id "internal" for an exception that is not core's Error).
ScheduleRefusal scheduleRefusal(std::string name, RefusalStage stage, const std::exception& e);

/// Whether a registered schedule can run with the project's parameters and model, and if not,
/// why (the first rule it breaks), in registry order.
struct ScheduleAvailability {
    std::string name;
    std::optional<ScheduleRefusal> refusal;
};
std::vector<ScheduleAvailability> scheduleAvailability(const Project& project);

/// Ops the request will evaluate: exact for imported schedules, and for registered ones the
/// count their generators produce (stages per pipe x pipes x micro-batches x 2 or 3 kinds), so a
/// front end can decide between evaluating in place and on a worker thread.
std::size_t estimateOpCount(const AnalysisRequest& request);
/// The same for one registered schedule with the project's parameters (0 when they break its rules).
std::size_t estimateOpCount(const Project& project, const GeneratorInfo& info);

/// The project an imported schedule is evaluated with: the request's project on the schedule's
/// own pipeline (pp and micro-batches from the file). The file's order is never refused for the
/// cluster's size or the layer count; in analytic mode the cost model names what to change.
Project projectForSchedule(const Project& project, const Schedule& schedule);

/// The order of registered schedule `name` for the project: its parameters (checked once) and,
/// for a cost-aware generator, the project's costs and memory limit. An order depends on neither
/// the cluster's size nor the layer count, so neither is checked (analyze() checks the layer split
/// before it times the order). Throws ValidationError naming the rule that failed.
Schedule orderFromProject(const Project& project, std::string_view name);

/// A refusal thrown as the ValidationError it was (its id, field, "name: message"), for callers
/// that evaluate one schedule and stop at its refusal (the CLI, the exports, the Python module).
[[noreturn]] void throwRefusal(const ScheduleRefusal& refusal);

/// Which prediction a measured timeline belongs to: the schedule it names (an outcome's name or its
/// schedule's); a trace of another tool, which names none, goes with the first of its shape, or
/// with the one candidate when there is one. `error` says why none matched (worded for every
/// front end). analyze() matches a request's trace by it; the viewer pairs its files by it.
struct TraceMatch {
    std::optional<std::size_t> outcome; ///< index into the candidates
    std::string error;                  ///< "" when matched
};
TraceMatch matchTraceOutcome(const Timeline& measured, std::span<const ScheduleOutcome* const> candidates);

/// The timing a stagecraft-run trace's own prediction used (otherData.run.prediction_timing) when
/// it was stagecraft-run's; empty for any other trace. A measurement is compared with the
/// prediction the run made, so analyze() times the project that way too (unless a runtime fit
/// times it), and a project calibrated on it keeps that timing.
std::optional<Timing> traceTiming(const MeasuredTrace& trace);

/// Of the traces open beside a request (the viewer opens projects and traces as files of their own
/// and pairs them afterwards), the one analyze() would time the request by had it been the
/// request's trace: the first stagecraft-run trace that names one of the request's schedules and
/// whose run predicted itself with another timing than the project's. nullptr when none does, when
/// the request keeps the project's timing (`timingFromTrace` false) or a runtime fit times it.
const MeasuredTrace* traceTimingTheRequest(const AnalysisRequest& request,
                                           std::span<const MeasuredTrace> traces);

/// Generate, simulate and measure every schedule the request names; match the trace, if any,
/// with the schedule of the same name. Never throws for a bad schedule: it becomes a refusal.
AnalysisResult analyze(const AnalysisRequest& request);

} // namespace stagecraft
