#pragma once
// How a front end turns what it was given (a project file, a schedule file, schedule names,
// `--set` overrides, a measured trace) into an AnalysisRequest. stagecraft-cli, `stagecraft
// --export` and the window's Open all call this, so a file is read, fitted and overridden one way.

#include "eval/evaluation.h"
#include "io/measured_trace.h"

#include <filesystem>
#include <string>
#include <vector>

namespace stagecraft {

struct EvaluationInput {
    /// A project (*.stagecraft.json) or a schedule file (torch .csv, Stagecraft schedule .json);
    /// empty: the built-in default project.
    std::string path;
    /// Costs, model and cluster for a schedule file: a project file; empty: the default project.
    /// Refused together with a project `path` (one project at a time).
    std::string projectPath;
    /// Registered schedules to evaluate instead of the project's list (not with a schedule file,
    /// which is its own schedule).
    std::vector<std::string> schedules;
    /// "section.field=value" overrides, applied in order after reading (applyProjectOverride).
    std::vector<std::string> sets;
    std::string tracePath; ///< a measured Chrome trace to overlay (optional)
    /// More trace files of the same run (one per rank for torch profiler traces), read with
    /// `tracePath` as one measurement (io/measured_trace.h finds each file's format).
    std::vector<std::string> tracePaths = {};
    /// Foreign traces of several iterations: the median over iterations of every op, instead of
    /// the one `traceIteration` names.
    bool traceMedian = false;
    /// How Megatron/zero-bubble range names ("F3.1": micro-batch 3, chunk 1) map to stages.
    ChunkPlacement chunkPlacement = ChunkPlacement::Loop;
    /// Reads Nsight Systems SQLite exports (a front end linked with SQLite passes it).
    RankReader sqliteReader = nullptr;
    /// A trace stagecraft-run wrote is predicted with the project's own costs.timing, not as the run
    /// predicted itself (AnalysisRequest::timingFromTrace).
    bool projectTiming = false;
    /// Which iteration of a trace of several to overlay: an args.iteration id, -1 the last.
    int traceIteration = -1;
    /// OVERLAP_F_B cells of torch CSVs are read as their sub-actions one after the other.
    bool serializeOverlap = false;
    /// Only orders are wanted (show, generate, lower): the project is not validated as a whole,
    /// since an order depends on the schedule parameters alone, which orderFromProject checks; its
    /// schedule list is (a project is valid or not whatever the command).
    bool orderOnly = false;
};

/// What a front end opens a file as. Every front end asks this (the window's File > Open, the
/// viewer's command line), so a file opens as the same thing everywhere.
enum class InputKind { Project, Schedule, Trace };

/// From the first bytes (core's sniffer: file_kind.h); a file they do not tell goes by its name
/// (*.stagecraft.json a project, anything else a schedule file), and the reader it reaches says
/// what is wrong with it. Gzip counts as a trace (compressed traces are common; their reader says
/// to decompress).
InputKind inputKind(const std::filesystem::path& path);

/// True when `path` names a schedule file rather than a project: a .csv, or a .json that is not
/// *.stagecraft.json and carries the key "stagecraft_schedule".
bool isScheduleFile(const std::string& path);

/// Read a schedule file as an imported schedule named after the file. torch CSVs carry no name, so
/// their schedule is named after the file too (charts and traces show that name); a Stagecraft
/// schedule JSON keeps its own.
ImportedSchedule importScheduleFile(const std::string& path, bool serializeOverlap = false);

/// The project the input names (the project file, the schedule file's --project, or the default),
/// with the overrides applied, as the user wrote it: before a request narrows its schedules to
/// --schedule or to a schedule file. Not validated.
Project loadInputProject(const EvaluationInput& input);

/// Read, override and validate. For a schedule file the request evaluates that schedule alone,
/// as an imported schedule on the project's costs (projectForSchedule fits the pipeline). Throws
/// stagecraft::Error for files that cannot be read or parsed, overrides that are not fields, and
/// projects that break a rule.
AnalysisRequest loadAnalysisRequest(const EvaluationInput& input);

/// `paths` read as one measured run (per-rank files of one run together) for a request's trace.
MeasuredTrace loadMeasuredTrace(const std::vector<std::filesystem::path>& paths,
                                const MeasuredTraceOptions& options);

/// The same from the ranks of `paths` read already (readTraceRanks of each): the run assembled as
/// loadMeasuredTrace assembles it (assembleMeasuredTrace).
MeasuredTrace loadMeasuredTrace(const std::vector<std::filesystem::path>& paths, std::vector<RankTrace> ranks,
                                const MeasuredTraceOptions& options);

} // namespace stagecraft
