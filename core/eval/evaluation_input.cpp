#include "eval/evaluation_input.h"

#include "error.h"
#include "eval/trace_read_options.h"
#include "file_io.h"
#include "file_kind.h"
#include "io/chrome_trace.h"
#include "io/measured_trace.h"
#include "io/schedule_file.h"
#include "project/project_json.h"
#include "project/project_validate.h"

#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace stagecraft {

InputKind inputKind(const std::filesystem::path& path) {
    const FileKind kind = sniffFileKind(path);
    if (kind == FileKind::Project) return InputKind::Project;
    if (isTraceKind(kind) || kind == FileKind::Gzip) return InputKind::Trace;
    if (kind != FileKind::Unknown) return InputKind::Schedule; // schedule JSON or CSV, programs
    std::string name = path.filename().string();
    for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    return name.ends_with(".stagecraft.json") ? InputKind::Project : InputKind::Schedule;
}

bool isScheduleFile(const std::string& path) {
    const std::filesystem::path p(path);
    std::string extension = p.extension().string();
    for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (extension == ".csv") return true;
    if (extension != ".json" || path.ends_with(".stagecraft.json")) return false;
    // Both are JSON: a schedule file carries the key "stagecraft_schedule", a project "stagecraft".
    // The first bytes tell (a trace of hundreds of MB is not parsed to find out it is neither);
    // only a file that does not say so there, and is small, is parsed whole.
    const FileKind kind = sniffFileKind(p);
    if (kind != FileKind::Unknown) return kind == FileKind::ScheduleJson;
    std::error_code ec;
    const auto size = std::filesystem::file_size(p, ec);
    if (ec || size > kMaxProjectBytes) return false;
    const auto json = nlohmann::json::parse(readTextFile(p), nullptr, /*allow_exceptions=*/false);
    return json.is_object() && json.contains("stagecraft_schedule");
}

ImportedSchedule importScheduleFile(const std::string& path, bool serializeOverlap) {
    ImportedSchedule imported;
    imported.path = path;
    imported.name = std::filesystem::path(path).filename().string();
    TorchCsvOptions csv;
    csv.overlap = serializeOverlap ? OverlapPolicy::Serialize : OverlapPolicy::Keep;
    csv.name = imported.name;
    imported.schedule = readScheduleFile(path, csv);
    return imported;
}

Project loadInputProject(const EvaluationInput& input) {
    const bool scheduleFile = !input.path.empty() && isScheduleFile(input.path);
    const std::string& projectPath = scheduleFile || input.path.empty() ? input.projectPath : input.path;
    Project project = projectPath.empty() ? defaultProject() : readProject(projectPath);
    for (const std::string& set : input.sets) applyProjectOverride(project, set);
    return project;
}

namespace {

/// The project's schedule list as `validate` checks it (unknown or repeated names): the rule of a
/// project that holds whatever the command.
void checkScheduleList(const Project& project) {
    for (const FieldProblem& problem : findProjectProblems(project))
        if (problem.field == "schedules")
            throw ValidationError("project.field", problem.field, problem.message);
}

} // namespace

AnalysisRequest loadAnalysisRequest(const EvaluationInput& input) {
    const bool scheduleFile = !input.path.empty() && isScheduleFile(input.path);
    if (!scheduleFile && !input.path.empty() && !input.projectPath.empty())
        throw ValidationError("eval.input", "--project",
                              "--project " + input.projectPath + " with the project " + input.path +
                                  ": give one project (--project is for the costs of a schedule file)");
    if (scheduleFile && !input.schedules.empty())
        throw ValidationError("eval.input", "--schedule",
                              "--schedule with the schedule file " + input.path +
                                  ": a schedule file is its own schedule; --schedule names registered "
                                  "schedules of a project");
    AnalysisRequest request;
    request.project = loadInputProject(input);
    if (scheduleFile) {
        ImportedSchedule imported = importScheduleFile(input.path, input.serializeOverlap);
        request.project.schedules.clear();
        // The project's rules are checked on the pipeline the file runs on, not the project's own.
        if (!input.orderOnly) validateProject(projectForSchedule(request.project, imported.schedule));
        request.imported.push_back(std::move(imported));
    } else {
        // The project is valid or not whatever the command: its own list (an unknown schedule in
        // it) is checked as `validate` checks it, before --schedule picks what to run. An order
        // needs neither the cluster nor the layer split, so `show`, `generate` and `lower` check the
        // list alone.
        if (!input.orderOnly)
            validateProject(request.project);
        else
            checkScheduleList(request.project);
        if (!input.schedules.empty()) {
            request.project.schedules = input.schedules;
            if (!input.orderOnly) validateProject(request.project);
        }
    }
    std::vector<std::filesystem::path> traces;
    if (!input.tracePath.empty()) traces.emplace_back(input.tracePath);
    for (const std::string& p : input.tracePaths) traces.emplace_back(p);
    if (!traces.empty()) {
        request.trace = loadMeasuredTrace(traces, measuredTraceOptions(input));
        request.timingFromTrace = !input.projectTiming;
    }
    return request;
}

namespace {

MeasuredTrace measuredTrace(const std::vector<std::filesystem::path>& paths, Timeline timeline,
                            TraceInfo info, MeasuredRunInfo run) {
    std::string path;
    for (const auto& t : paths) path += (path.empty() ? "" : ", ") + t.string();
    MeasuredTrace trace{path, std::make_shared<const Timeline>(std::move(timeline)), std::move(info)};
    if (run.ranks > 0) trace.run = std::move(run);
    trace.files = paths;
    return trace;
}

} // namespace

MeasuredTrace loadMeasuredTrace(const std::vector<std::filesystem::path>& paths,
                                const MeasuredTraceOptions& options) {
    TraceInfo info;
    MeasuredRunInfo run;
    Timeline timeline = readMeasuredTrace(paths, options, &info, &run);
    return measuredTrace(paths, std::move(timeline), std::move(info), std::move(run));
}

MeasuredTrace loadMeasuredTrace(const std::vector<std::filesystem::path>& paths, std::vector<RankTrace> ranks,
                                const MeasuredTraceOptions& options) {
    TraceInfo info;
    MeasuredRunInfo run;
    Timeline timeline = assembleMeasuredTrace(std::move(ranks), options, &info, &run);
    return measuredTrace(paths, std::move(timeline), std::move(info), std::move(run));
}

} // namespace stagecraft
