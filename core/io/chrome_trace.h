#pragma once
// Chrome trace event JSON, the file format of a Timeline: every trace Stagecraft writes opens in
// Perfetto (ui.perfetto.dev) as is, and reads back into the same Timeline. The reader also takes
// traces of other tools whose slices are named with torch action strings ("PP:2F0" annotations
// of the PyTorch profiler). docs/trace-format.md describes the mapping.

#include "sim/timeline.h"

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

struct ChromeTraceOptions {
    std::string title;                    ///< stored in otherData.title
    std::vector<CounterTrack> counters;   ///< extra counter tracks
    std::vector<std::string> deviceNames; ///< process names; missing entries are "Device d"
};

/// The trace as JSON text. Throws ValidationError("trace.write") naming the event and the rule
/// when the timeline cannot be written so that it reads back (a non-finite or negative time, an
/// op outside the shape, a counter on an unknown device).
std::string timelineToChromeTrace(const Timeline& timeline, const ChromeTraceOptions& options = {});
/// The same, written atomically.
void writeChromeTrace(const Timeline& timeline, const std::filesystem::path& path,
                      const ChromeTraceOptions& options = {});

/// Reads a trace (object form or bare array). Bad JSON is a ParseError("trace.json") with line
/// and column; a slice the reader claims (a Stagecraft category, or a name that is an action
/// string) with a bad field is a ParseError("trace.event") naming traceEvents[i], the field, the
/// value and the rule. Events it does not understand are skipped. `source` names the text in
/// messages (usually the file path).
Timeline parseChromeTrace(std::string_view text, const std::string& source);
Timeline readChromeTrace(const std::filesystem::path& path);

/// The slice name of an op: its torch action string for F/B/W ("2F1", "p1:0I3"), otherwise
/// "GradSync s3" / "Optimizer p1:s0".
std::string traceSliceName(const Op& op, bool splitBackward);

} // namespace stagecraft
