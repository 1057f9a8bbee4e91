#pragma once
// Chrome trace event JSON, the file format of a Timeline: every trace Stagecraft writes opens in
// Perfetto (ui.perfetto.dev) as is, and reads back into the same Timeline. The reader claims
// Stagecraft's categories only; ranges torch named ("PP:2F0" annotations of the PyTorch
// profiler) are io/torch_trace.h's, reached through io/measured_trace.h (one reader per format).
// docs/trace-format.md describes the mapping.

#include "sim/timeline.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stagecraft {

/// A per-device counter drawn under the device's lanes (activation memory, in-flight
/// micro-batches). Written as "C" events; not read back.
struct CounterTrack {
    int device = 0;
    std::string name;
    std::vector<std::pair<double, double>> points; ///< (µs, value)
};

/// A slice that is not an op, written beside a timeline's events: the part of a transfer spent
/// waiting for the peer (category "wait"), a host stall. It goes on its own thread of the device's
/// lane ("comm wait", then "comm wait 2" for overlapping ones) and is skipped when the trace is
/// read back, so its category must not be one the reader claims and its name not an action string.
struct TraceSlice {
    int device = 0;
    Lane lane = Lane::Comm;
    std::string name;
    std::string category;
    double start = 0; ///< µs
    double end = 0;
    std::uint32_t iteration = 0; ///< written as args.iteration
};

struct ChromeTraceOptions {
    std::string title;                    ///< stored in otherData.title
    std::vector<CounterTrack> counters;   ///< extra counter tracks
    std::vector<std::string> deviceNames; ///< process names; missing entries are "Device d"
    /// Empty, or one entry per timeline event: the iteration it belongs to, written as
    /// args.iteration. A measured timeline then holds several iterations one after another, each
    /// op once per iteration; a transfer's arrow goes to its consumer of the same iteration.
    std::vector<std::uint32_t> iterations = {};
    /// Empty, or a JSON object written as is as otherData.run (backend, devices, clock offsets,
    /// git revision ... of the run that measured the trace).
    std::string runJson = {};
    std::vector<TraceSlice> annotations = {}; ///< extra slices, skipped by the reader
};

/// Which iteration of a trace of several to read.
struct TraceReadOptions {
    /// An id of args.iteration; -1: the last (highest) one, where a runtime's warm iterations are.
    int iteration = -1;
};

/// What a trace holds beyond the timeline read from it.
struct TraceInfo {
    int iterations = 0;            ///< distinct args.iteration ids; 0 when slices carry none
    std::vector<int> iterationIds; ///< those ids, ascending
    std::string runJson;           ///< otherData.run as JSON text; empty when absent
    int iteration = -1;            ///< the one read; -1 when slices carry none
};

/// The trace as JSON text. Throws ValidationError("trace.write") naming the event and the rule
/// when the timeline cannot be written so that it reads back (a non-finite or negative time, an
/// op outside the shape, a counter or an annotation on an unknown device, an annotation the
/// reader would take for an op, iterations that are not one per event, a run that is not a JSON
/// object).
std::string timelineToChromeTrace(const Timeline& timeline, const ChromeTraceOptions& options = {});
/// The same, written atomically.
void writeChromeTrace(const Timeline& timeline, const std::filesystem::path& path,
                      const ChromeTraceOptions& options = {});

/// True when `head` (a file's first bytes) carries the mark every Stagecraft trace opens with
/// (`otherData.stagecraft_trace`, written first): the sniffers' test for "ours".
bool namesStagecraftTrace(std::string_view head);

/// Reads a trace (object form or bare array). Bad JSON is a ParseError("trace.json") with line
/// and column; a slice the reader claims (a Stagecraft category, its op in args or its name an
/// action string such as "2F0") with a bad field is a ParseError("trace.event") naming traceEvents[i], the
/// field, the value and the rule. Events it does not understand are skipped. `source` names the text in
/// messages (usually the file path). Reads with default options.
Timeline parseChromeTrace(std::string_view text, const std::string& source);
Timeline readChromeTrace(const std::filesystem::path& path);

/// The same, for a trace of several iterations: when the claimed slices carry args.iteration,
/// only those of `options.iteration` are kept and shifted so that the earliest starts at 0 (a
/// Timeline's times are from the start of its iteration). An id the trace does not hold is a
/// ParseError("trace.iteration") listing the ones it holds; a slice with a bad iteration is a
/// ParseError("trace.event"). `info`, when given, receives the iterations and otherData.run.
Timeline parseChromeTrace(std::string_view text, const std::string& source, const TraceReadOptions& options,
                          TraceInfo* info = nullptr);
Timeline readChromeTrace(const std::filesystem::path& path, const TraceReadOptions& options,
                         TraceInfo* info = nullptr);

} // namespace stagecraft
