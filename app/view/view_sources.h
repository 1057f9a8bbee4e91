#pragma once
// What stagecraft-view was asked to open, read through core: Chrome traces (readChromeTrace),
// schedule files and projects (core's evaluation: loadAnalysisRequest + analyze). No drawing
// here; a file that cannot be read keeps its message for the window and stderr.

#include "eval/evaluation.h"
#include "sim/timeline.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stagecraft::view {

enum class SourceKind { Trace, Schedule, Project };

/// One file on the command line.
struct ViewSource {
    std::string path;
    SourceKind kind = SourceKind::Trace;
    std::string error; ///< why it shows nothing ("" when it loaded)
    /// Schedules and projects: the evaluation (outcomes and refusals).
    std::shared_ptr<const AnalysisResult> analysis;
    /// Traces: the timeline read.
    std::shared_ptr<const Timeline> trace;
    TraceInfo traceInfo;
    /// Traces: their counter tracks (memory per device), which the timeline reader skips.
    std::vector<CounterTrack> counters;
    double loadSeconds = 0;
    double counterSeconds = 0; ///< of loadSeconds, the counter pass over a trace
    /// For --follow: what the file looked like when read.
    std::uintmax_t size = 0;
    std::filesystem::file_time_type mtime{};
};

/// How schedule files are timed and which iteration of a trace is read.
struct LoadOptions {
    std::string costsProject; ///< --project: costs, model and cluster for schedule files
    std::vector<std::string> sets;
    int traceIteration = -1;
};

/// Which kind `path` is: a schedule file (core's isScheduleFile), a trace (a .json whose start
/// holds "traceEvents" or opens an array), or a project.
SourceKind classifySource(const std::string& path);

/// Reads one file. Never throws: errors (core's, the file system's, out of memory) land in
/// `error`, prefixed with the file name.
ViewSource loadSource(const std::string& path, const LoadOptions& options);

/// True when the file changed since `source` was read (size or modification time): --follow.
bool sourceChanged(const ViewSource& source);

} // namespace stagecraft::view
