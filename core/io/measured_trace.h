#pragma once
// One entry point for every measured trace a user may have: a Stagecraft trace, torch profiler
// traces (one per rank), torch's _dump_chrometrace, Nsight Systems JSON exports, and (through a
// reader the caller passes, as it needs SQLite) Nsight Systems SQLite exports. The format is
// found from the content, not the extension.

#include "io/chrome_trace.h"
#include "io/measured_run.h"

#include <filesystem>
#include <string>
#include <vector>

namespace stagecraft {

/// A reader of one file format into ranks that lives outside core (Nsight Systems SQLite).
using RankReader = std::vector<RankTrace> (*)(const std::filesystem::path& path);

/// Which format a file holds.
enum class TraceFormat : std::uint8_t { Stagecraft, Torch, NsysJson, NsysSqlite };
/// From the first bytes: SQLite's file header, an nsys JSON line, a torch trace, else Stagecraft;
/// a JSON trace whose first 64 KiB name neither torch nor Stagecraft is torch's when the rest of
/// it carries torch's marks (namesTorchActions).
TraceFormat detectTraceFormat(const std::filesystem::path& path);

struct MeasuredTraceOptions {
    MeasuredRunOptions run;      ///< iterations, clock alignment, chunk placement
    RankReader sqlite = nullptr; ///< reads .sqlite exports; nullptr: they are refused
};

/// Every event at the median over `iterations` (timelines of one schedule, times from the start of
/// their iteration) of its start and of its end; events matched by op, device, lane and transfer.
Timeline medianTimeline(const std::vector<Timeline>& iterations);

/// The ranks of one trace file of another tool (torch profiler, torch's _dump_chrometrace, Nsight
/// Systems JSON, and SQLite through `options.sqlite`), by its format's reader: what
/// readMeasuredTrace assembles. A Stagecraft trace is refused (trace.container): it holds a whole
/// run and is read by readChromeTrace.
std::vector<RankTrace> readTraceRanks(const std::filesystem::path& path, const MeasuredTraceOptions& options);

/// The ranks of one run's files (readTraceRanks of each) as its timeline: assembleMeasuredRun,
/// with `traceInfo` told the iterations the run holds and the one read. The one assembly of a run
/// of another tool, for readMeasuredTrace and for front ends that read the files' ranks first
/// (the viewer splits a command line into runs by them).
Timeline assembleMeasuredTrace(std::vector<RankTrace> ranks, const MeasuredTraceOptions& options,
                               TraceInfo* traceInfo = nullptr, MeasuredRunInfo* runInfo = nullptr);

/// Reads `paths` as one measured run. A single Stagecraft trace is read by readChromeTrace (with
/// the median pick, each iteration, then medianTimeline); every other format is
/// read into ranks, and the ranks of all files are assembled together (assembleMeasuredRun).
/// Mixing a Stagecraft trace with other files is refused (trace.container). `traceInfo` receives
/// the iterations, `runInfo` the ranks, clocks and communication waits (foreign formats only).
Timeline readMeasuredTrace(const std::vector<std::filesystem::path>& paths,
                           const MeasuredTraceOptions& options, TraceInfo* traceInfo = nullptr,
                           MeasuredRunInfo* runInfo = nullptr);

} // namespace stagecraft
