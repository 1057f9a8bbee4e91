#pragma once
// What every stagecraft-cli command shares: the input options (a project or a schedule file,
// --project for a schedule file's costs, --schedule, --set), turned into core's AnalysisRequest by
// core's loadAnalysisRequest, and the exit-status convention. No command re-derives what core
// decides (which schedules can run, how a file fits the project).

#include "eval/evaluation.h"
#include "eval/evaluation_input.h"
#include "generators/registry.h"
#include "option_table_cli.h"
#include "project/project.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

namespace stagecraft::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  ///< runtime failure (cannot write a file, ...)
inline constexpr int kExitBadInput = 2; ///< usage error or invalid input

/// Options of commands that start from a project or a schedule file.
struct ProjectOptions {
    std::string projectPath;  ///< positional: project (*.stagecraft.json) or schedule file (.csv/.json)
    std::string costsProject; ///< --project: the project whose costs a schedule file is timed with
    std::string scheduleName; ///< --schedule: one name, or a comma list where the command takes several
    std::vector<std::string> sets;
    std::string tracePath;               ///< the positional trace, where the command offers it
    std::vector<std::string> tracePaths; ///< --trace FILE...: the files of one measured run
    /// --iteration, --median, --placement: core's trace reading options (eval/trace_read_options.h).
    std::shared_ptr<CliOptionTable> traceReading;
    bool serializeOverlap = false;
    bool scheduleRequired = true; ///< a project needs --schedule (a schedule file never does)
    bool acceptsScheduleFile = true;
    bool orderOnly = false; ///< the command draws or writes orders only (see EvaluationInput)

    void addTo(CLI::App& command);
    /// --trace FILE... (one run, one file per rank where the tool writes one per rank) and core's
    /// trace reading options (--iteration, --median, --placement).
    void addTraceOptions(CLI::App& command);
    /// Core's view of these options; `schedules` are the names --schedule lists.
    EvaluationInput input() const;
};

/// CLI11's PositiveNumber and NonNegativeNumber with a plain rule: "--global-batch: must be a
/// positive number, not -5" (CLI11's own names its range as 0 to 1.8e308 written out in full).
const CLI::Validator& positiveNumber();
const CLI::Validator& nonNegativeNumber();

Project loadProject(const ProjectOptions& options);

/// The request of the options: a schedule file evaluated alone, or the project's schedules (or
/// those --schedule names). Refuses a project without --schedule when one is required.
AnalysisRequest loadRequest(const ProjectOptions& options);

/// The outcome of a one-schedule request, or its refusal thrown as the ValidationError it was.
const ScheduleOutcome& onlyOutcome(const AnalysisResult& result);

/// The order of registered schedule `scheduleName` for the project's parameters (core's
/// orderFromProject: the layer split and the cluster do not matter to an order).
Schedule generateFromProject(const Project& project, const std::string& scheduleName);

/// The names of a comma list ("1f1b,zb-v"), empty entries dropped.
std::vector<std::string> splitNames(const std::string& list);

/// "auto" = colours when stdout is a terminal and NO_COLOR is unset.
bool wantColor(const std::string& mode);

} // namespace stagecraft::cli
