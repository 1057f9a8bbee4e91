#include "eval/evaluation.h"

#include "error.h"
#include "eval/schedule_checks.h"
#include "eval/work_estimate.h"
#include "generators/registry.h"
#include "sim/generate_request.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

namespace stagecraft {

ScheduleRefusal scheduleRefusal(std::string name, RefusalStage stage, const std::exception& e) {
    ScheduleRefusal r;
    r.name = std::move(name);
    r.stage = stage;
    if (const auto* error = dynamic_cast<const Error*>(&e)) {
        r.id = error->id();
        r.message = error->message();
        if (const auto* validation = dynamic_cast<const ValidationError*>(&e)) r.field = validation->field();
    } else {
        r.id = "internal";
        r.message = e.what();
    }
    return r;
}

namespace {

template <typename ScheduleRef>
ScheduleOutcome outcomeOf(std::string name, std::string title, bool imported, const Project& project,
                          ScheduleRef&& schedule, const WorkControl* control, MemoryDetail memory) {
    ScheduleOutcome o;
    o.name = std::move(name);
    o.title = std::move(title);
    o.imported = imported;
    o.prediction = predict(project, std::forward<ScheduleRef>(schedule), control, memory);
    o.prediction.report.schedule = o.name; // an imported file is known by its file name
    o.index = o.prediction.index;
    return o;
}

void matchTrace(const MeasuredTrace& trace, AnalysisResult& result) {
    std::vector<const ScheduleOutcome*> candidates;
    for (const ScheduleOutcome& o : result.outcomes) candidates.push_back(&o);
    const TraceMatch match = matchTraceOutcome(*trace.timeline, candidates);
    if (!match.outcome) {
        result.overlayError = match.error;
        return;
    }
    try {
        result.overlay = OverlayOutcome{
            *match.outcome,
            compareTimelines(result.outcomes[*match.outcome].prediction.timeline, *trace.timeline)};
        result.measured = trace.timeline;
        result.measuredPath = trace.path;
        if (trace.run) result.measuredSpread = iterationSpreadText(*trace.run);
    } catch (const Error& e) {
        result.overlayError = e.message();
    }
}

/// Whether `trace` would time `request` otherwise than its project's own timing.
bool retimes(const AnalysisRequest& request, const MeasuredTrace& trace) {
    if (!request.timingFromTrace || request.project.runtimeFit) return false;
    const std::optional<Timing> timing = traceTiming(trace);
    return timing && *timing != request.project.costs.timing;
}

/// The request's project timed as its trace's run predicted itself, or empty when nothing changes.
std::optional<Project> projectTimedLikeTrace(const AnalysisRequest& request) {
    if (!request.trace || !retimes(request, *request.trace)) return std::nullopt;
    Project project = request.project;
    project.costs.timing = *traceTiming(*request.trace);
    return project;
}

} // namespace

std::optional<Timing> traceTiming(const MeasuredTrace& trace) {
    if (trace.info.runJson.empty()) return std::nullopt;
    const nlohmann::json run = nlohmann::json::parse(trace.info.runJson, nullptr, false);
    if (!run.is_object() ||
        run.value("prediction_timing", std::string()) != timingName(Timing::StagecraftRun))
        return std::nullopt;
    return Timing::StagecraftRun;
}

const MeasuredTrace* traceTimingTheRequest(const AnalysisRequest& request,
                                           std::span<const MeasuredTrace> traces) {
    for (const MeasuredTrace& trace : traces) {
        if (!trace.timeline || !retimes(request, trace)) continue;
        const std::string& named = trace.timeline->shape.schedule;
        const auto& registered = request.project.schedules;
        if (std::find(registered.begin(), registered.end(), named) != registered.end() ||
            std::any_of(request.imported.begin(), request.imported.end(), [&](const ImportedSchedule& s) {
                return s.checked && (s.name == named || s.schedule.name == named);
            }))
            return &trace;
    }
    return nullptr;
}

TraceMatch matchTraceOutcome(const Timeline& measured, std::span<const ScheduleOutcome* const> candidates) {
    const std::string& wanted = measured.shape.schedule;
    TraceMatch m;
    for (std::size_t i = 0; i < candidates.size() && !m.outcome; ++i)
        if (candidates[i]->name == wanted || candidates[i]->prediction.schedule.name == wanted) m.outcome = i;
    // A trace of another tool names no schedule: it goes with the one schedule evaluated, or with
    // the first whose shape it has.
    if (!m.outcome && wanted.empty()) {
        for (std::size_t i = 0; i < candidates.size() && !m.outcome; ++i) {
            TimelineShape shape = candidates[i]->prediction.timeline.shape;
            shape.schedule.clear();
            if (shape == measured.shape) m.outcome = i;
        }
        if (!m.outcome && candidates.size() == 1) m.outcome = 0;
    }
    if (m.outcome) return m;
    if (wanted.empty()) {
        // A run of another tool: say which shape it has and which the schedules have.
        auto shapeText = [](const TimelineShape& t) {
            return std::to_string(t.devices) + " devices, " + std::to_string(t.stagesPerPipe) + " stages, " +
                   std::to_string(t.microbatches) + " micro-batches, " +
                   (t.splitBackward ? "split" : "whole") + " backward";
        };
        std::string shapes;
        for (const ScheduleOutcome* o : candidates)
            shapes += (shapes.empty() ? "" : "; ") + o->name + ": " + shapeText(o->prediction.timeline.shape);
        m.error = "the measured run (" + shapeText(measured.shape) +
                  ") has the shape of none of the schedules evaluated (" +
                  (shapes.empty() ? std::string("none") : shapes) +
                  "); pick one of its shape with --schedule and --set parallel.pp/microbatches/chunks";
        return m;
    }
    // Worded for every front end: the window's picker and the command line's --schedule alike.
    std::string evaluated;
    for (const ScheduleOutcome* o : candidates) evaluated += (evaluated.empty() ? "" : ", ") + o->name;
    m.error = "the trace is of schedule '" + wanted + "', which is not among the schedules evaluated (" +
              (evaluated.empty() ? std::string("none") : evaluated) + ")";
    return m;
}

const ScheduleRefusal* AnalysisResult::refusalOf(const std::string& name) const {
    const auto it = std::find_if(refusals.begin(), refusals.end(),
                                 [&](const ScheduleRefusal& r) { return r.name == name; });
    return it == refusals.end() ? nullptr : &*it;
}

std::vector<ScheduleAvailability> scheduleAvailability(const Project& project) {
    std::vector<ScheduleAvailability> out;
    const auto checks = checkSchedules(project); // held: the loop reads into it
    for (const CheckedSchedule& c : checks->schedules) out.push_back({std::string(c.info->name), c.problem});
    return out;
}

std::size_t estimateOpCount(const Project& project, const GeneratorInfo& info) {
    return checkSchedule(project, info).ops;
}

std::size_t estimateOpCount(const AnalysisRequest& request) {
    return estimateWork(request).ops;
}

void throwRefusal(const ScheduleRefusal& refusal) {
    throw ValidationError(refusal.id, refusal.field, refusal.name + ": " + refusal.message);
}

Schedule orderFromProject(const Project& project, std::string_view name) {
    const GeneratorInfo& info = findGenerator(name);
    checkParams(info, effectiveParams(info, scheduleParams(project)));
    const GenerateRequest request = generateRequest(project, info);
    checkRequest(info, request);
    return generateChecked(info, request);
}

Project projectForSchedule(const Project& project, const Schedule& schedule) {
    Project fitted = project;
    fitted.parallel.pp = schedule.devices;
    // A sliced schedule's micro-batch numbers are slice units: the project counts micro-batches.
    fitted.parallel.microbatches = schedule.microbatches / std::max(1, schedule.sequenceSlices);
    if (schedule.sequenceSlices > 1) fitted.parallel.slices = schedule.sequenceSlices;
    // Per-stage overrides name full stages of the project's pipeline; on another pipeline they
    // would name stages that do not exist.
    if (schedule.devices != project.parallel.pp) fitted.costs.stages.clear();
    return fitted;
}

AnalysisResult analyze(const AnalysisRequest& request) {
    AnalysisResult result;
    const std::optional<Project> timedLikeTrace = projectTimedLikeTrace(request);
    const Project& project = timedLikeTrace ? *timedLikeTrace : request.project;
    const auto stopped = [&] {
        if (request.cancel && request.cancel->load(std::memory_order_relaxed)) result.cancelled = true;
        return result.cancelled;
    };
    // Progress: each schedule's share of the work is its estimated effort (work_estimate.h); a
    // searched order spends nearly all of its share generating, a plain one mostly predicting.
    const std::shared_ptr<const ScheduleChecks> checks = checksOf(request);
    const double totalEffort = std::max(1.0, estimateWork(request, *checks).effortOps);
    double doneEffort = 0;
    const auto controlOf = [&](const std::string& name, double effort) {
        WorkControl control;
        control.cancel = request.cancel.get();
        if (request.progress)
            control.progress = [&request, name, start = doneEffort, effort, totalEffort](double f) {
                request.progress(std::min(1.0, (start + f * effort) / totalEffort), name);
            };
        return control;
    };
    for (const std::string& name : project.schedules) {
        if (stopped()) return result;
        const GeneratorInfo* info = tryFindGenerator(name);
        if (!info) {
            try {
                findGenerator(name); // throws the message that lists the valid names
            } catch (const Error& e) {
                result.refusals.push_back(scheduleRefusal(name, RefusalStage::Lookup, e));
            }
            continue;
        }
        const CheckedSchedule* checked = checks->find(name);
        CheckedSchedule own; // checks a front end set for another project list lack it: check now
        if (!checked) checked = &(own = checkSchedule(project, *info));
        if (checked->problem) {
            result.refusals.push_back(*checked->problem);
            continue;
        }
        const double effort = checked->effortOps;
        const WorkControl control = controlOf(name, effort);
        const double generating = info->usesCosts ? 1 - 1 / kSearchEffortPerOp : 0.25;
        const WorkControl generation = control.part(0, generating), prediction = control.part(generating, 1);
        try {
            // The checks passed the parameters; the request's costs are the cost model's own.
            GenerateRequest generate = generateRequest(project, *info);
            checkRequest(*info, generate);
            generate.control = &generation;
            result.outcomes.push_back(outcomeOf(std::string(info->name), std::string(info->title), false,
                                                project, generateChecked(*info, generate), &prediction,
                                                request.memory));
        } catch (const Error& e) {
            if (e.id() == "work.cancelled") {
                result.cancelled = true;
                return result;
            }
            result.refusals.push_back(scheduleRefusal(std::string(info->name), RefusalStage::Evaluation, e));
        } catch (const std::exception& e) {
            // A schedule core refuses (deadlock, memory inputs ...) is reported next to it; the
            // other schedules still show.
            result.refusals.push_back(scheduleRefusal(std::string(info->name), RefusalStage::Evaluation, e));
        }
        doneEffort += effort;
    }
    for (const ImportedSchedule& imported : request.imported) {
        if (!imported.checked) continue;
        if (stopped()) return result;
        const double effort = double(imported.schedule.opCount());
        const WorkControl prediction = controlOf(imported.name, effort);
        try {
            const Project fitted = projectForSchedule(project, imported.schedule);
            result.outcomes.push_back(outcomeOf(imported.name, imported.name, true, fitted, imported.schedule,
                                                &prediction, request.memory));
        } catch (const Error& e) {
            if (e.id() == "work.cancelled") {
                result.cancelled = true;
                return result;
            }
            result.refusals.push_back(scheduleRefusal(imported.name, RefusalStage::Evaluation, e));
        } catch (const std::exception& e) {
            result.refusals.push_back(scheduleRefusal(imported.name, RefusalStage::Evaluation, e));
        }
        doneEffort += effort;
    }
    for (const ScheduleOutcome& o : result.outcomes) result.opCount += o.prediction.schedule.opCount();
    if (request.trace) matchTrace(*request.trace, result);
    return result;
}

} // namespace stagecraft
