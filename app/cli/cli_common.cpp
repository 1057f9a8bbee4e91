#include "cli_common.h"

#include "error.h"
#include "eval/option_table.h"
#include "eval/trace_read_options.h"
#include "project/project_json.h"
#include "project/project_validate.h"
#include "sqlite_rank_reader.h"

#include <cerrno>
#include <cstdlib>
#include <unistd.h>

namespace stagecraft::cli {

void ProjectOptions::addTo(CLI::App& command) {
    command.add_option("project", projectPath,
                       acceptsScheduleFile
                           ? "Project file (*.stagecraft.json) or schedule file (torch .csv, Stagecraft "
                             ".json); the built-in default project if absent"
                           : "Project file (*.stagecraft.json); the built-in default project if absent");
    if (acceptsScheduleFile) {
        command.add_option("--project", costsProject,
                           "With a schedule file: the project whose model, cluster and costs time it "
                           "(default: the built-in project)");
        command.add_flag("--serialize-overlap", serializeOverlap,
                         "Read torch OVERLAP_F_B cells as their sub-actions one after the other");
    }
    command.add_option("-s,--schedule", scheduleName,
                       "Schedule name (see `stagecraft-cli list`); not with a schedule file");
    command.add_option("--set", sets, "Override a project field: --set parallel.pp=8 (repeatable)")
        ->type_name("PATH=VALUE");
}

void ProjectOptions::addTraceOptions(CLI::App& command) {
    command
        .add_option("--trace", tracePaths,
                    "Measured trace files of one run: a Stagecraft trace, torch profiler traces (one per "
                    "rank), torch _dump_chrometrace, Nsight Systems exports (.sqlite, JSON)")
        ->expected(1, -1)
        ->type_name("FILE...");
    traceReading = std::make_shared<CliOptionTable>(command, traceReadOptions());
}

EvaluationInput ProjectOptions::input() const {
    EvaluationInput in;
    in.path = projectPath;
    in.projectPath = costsProject;
    in.schedules = splitNames(scheduleName);
    in.sets = sets;
    in.tracePath = tracePath;
    in.tracePaths = tracePaths;
    if (traceReading) readTraceOptions(traceReading->values(), in);
    in.sqliteReader = sqliteRankReader();
    in.serializeOverlap = serializeOverlap;
    in.orderOnly = orderOnly;
    return in;
}

namespace {

CLI::Validator numberRule(bool zeroAllowed) {
    const std::string rule = zeroAllowed ? "must be 0 or a positive number" : "must be a positive number";
    return CLI::Validator(
        [zeroAllowed, rule](std::string& text) -> std::string {
            char* end = nullptr;
            errno = 0;
            const double value = std::strtod(text.c_str(), &end);
            const bool number = !text.empty() && end == text.c_str() + text.size() && errno == 0;
            if (number && (value > 0 || (zeroAllowed && value == 0))) return {};
            return rule + ", not " + text;
        },
        zeroAllowed ? "NONNEGATIVE" : "POSITIVE");
}

} // namespace

const CLI::Validator& positiveNumber() {
    static const CLI::Validator rule = numberRule(false);
    return rule;
}

const CLI::Validator& nonNegativeNumber() {
    static const CLI::Validator rule = numberRule(true);
    return rule;
}

Project loadProject(const ProjectOptions& options) {
    Project project = options.projectPath.empty() ? defaultProject() : readProject(options.projectPath);
    for (const std::string& set : options.sets) applyProjectOverride(project, set);
    validateProject(project);
    return project;
}

AnalysisRequest loadRequest(const ProjectOptions& options) {
    const EvaluationInput in = options.input();
    const bool scheduleFile = !in.path.empty() && isScheduleFile(in.path);
    if (!scheduleFile && options.scheduleRequired && in.schedules.empty())
        throw ValidationError("cli.schedule", "--schedule",
                              "no schedule given: pass --schedule NAME (see `stagecraft-cli list`) or a "
                              "schedule file (.csv, .json)");
    return loadAnalysisRequest(in);
}

const ScheduleOutcome& onlyOutcome(const AnalysisResult& result) {
    if (!result.refusals.empty()) throwRefusal(result.refusals.front());
    if (result.outcomes.empty())
        throw ValidationError("cli.schedule", "--schedule", "no schedule to evaluate: pass --schedule NAME");
    return result.outcomes.front();
}

Schedule generateFromProject(const Project& project, const std::string& scheduleName) {
    return orderFromProject(project, scheduleName);
}

std::vector<std::string> splitNames(const std::string& list) {
    return commaList(list);
}

bool wantColor(const std::string& mode) {
    if (mode == "always") return true;
    if (mode == "never") return false;
    return ::isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
}

} // namespace stagecraft::cli
