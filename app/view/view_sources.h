#pragma once
// What stagecraft-view was asked to open, read through core/eval as the app and the CLI read it:
// what a file is by core's inputKind; traces by loadMeasuredTrace (a Stagecraft trace alone; the
// per-rank files of another tool's run, torch profiler, torch's _dump_chrometrace, Nsight Systems,
// as one run, assembled by core's one assembler); schedule files and projects by
// loadAnalysisRequest + analyze. No drawing here; a file that cannot be read keeps its message
// for the window and stderr.

#include "eval/evaluation.h"
#include "eval/evaluation_input.h"
#include "sim/timeline.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stagecraft::view {

/// What a file opens as: core's rule (inputKind), the one the app's File > Open follows.
using SourceKind = InputKind;

/// What a file looked like when it was read (--follow re-reads it when this changes).
struct FileStamp {
    std::uintmax_t size = 0;
    std::filesystem::file_time_type mtime{};
    friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

/// One file on the command line, or the per-rank files of one run of another tool.
struct ViewSource {
    std::string path; ///< the file; for a run, its first file
    /// A run of another tool's traces (torch profiler, Nsight): every file of it, one per rank (or
    /// one for all), read as one timeline. Empty for a Stagecraft trace, a schedule or a project.
    std::vector<std::string> runFiles;
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
    /// For --follow: what each file (path, or every file of a run) looked like when read.
    std::vector<FileStamp> stamps;
};

/// How schedule files are timed and which iteration of a trace is read.
struct LoadOptions {
    /// What every file opens with, as the CLI's and the app's: --project (the costs, model and
    /// cluster of schedule files), --set, and how a trace is read (--iteration, --median,
    /// --placement: core's measuredTraceOptions). Each file's own path is set per file.
    EvaluationInput input;
    /// Set to stop an evaluation of a schedule file or project between its steps (the source then
    /// holds the error "cancelled"); trace reads stop through io/read_progress.h.
    std::shared_ptr<const std::atomic<bool>> cancel;
    /// Told the share of an evaluation done (AnalysisRequest::progress), on the reading thread.
    std::function<void(double fraction, const std::string& schedule)> evaluation;
    /// Told each file as loadSources starts reading it, on the reading thread.
    std::function<void(const std::string& path)> fileStarted;
    /// The traces open beside a project or schedule file: one stagecraft-run wrote of one of its
    /// schedules times it as that run predicted itself (core's traceTimingTheRequest), so the
    /// viewer compares a run with the prediction the CLI's and the app's overlay show, unless
    /// `input.projectTiming` (--project-timing) keeps the project's own timing. loadSources reads
    /// the command line's traces first and fills this itself.
    std::vector<MeasuredTrace> traces;
};

/// A trace of another tool (torch profiler, torch's _dump_chrometrace, Nsight Systems), read with
/// the other per-rank files of its run, never alone by the Stagecraft trace reader.
bool isForeignTrace(const std::string& path);

/// Reads one file. Never throws: errors (core's, the file system's, out of memory) land in
/// `error`, prefixed with the file name.
ViewSource loadSource(const std::string& path, const LoadOptions& options);

/// Reads the files of the command line, in order. Traces of other tools given one after another
/// are the per-rank files of one run and become one source (a multi-iteration torch run shows its
/// iteration `traceIteration`); a file of a rank the run already holds starts the next run, and
/// any other file ends it. Schedule files and projects are evaluated after every trace is read,
/// with them as `options.traces`. Never throws.
std::vector<ViewSource> loadSources(const std::vector<std::string>& paths, const LoadOptions& options);

/// The traces of `sources` as core's MeasuredTrace (shared, not copied): LoadOptions::traces.
std::vector<MeasuredTrace> openTraces(const std::vector<ViewSource>& sources);

/// The file name of `source` (no folder), or of every file of its run joined by " + ".
std::string sourceName(const ViewSource& source);

/// Reads `source` again (its file, or every file of its run): --follow.
ViewSource reloadSource(const ViewSource& source, const LoadOptions& options);

/// True when a file changed since `source` was read (size or modification time): --follow.
bool sourceChanged(const ViewSource& source);

} // namespace stagecraft::view
