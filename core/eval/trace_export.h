#pragma once
// A prediction written as a trace for the tools people view or replay it with, the format chosen by
// the file name: `.json` (Chrome trace, read by Perfetto, chrome://tracing and Stagecraft itself,
// with the memory curves as counters), `.pftrace` (Perfetto's native protobuf: big schedules) and
// `.et` (Chakra execution traces of the lowered programs, one file per rank). stagecraft-cli export
// and the Python module call this.

#include "eval/project_simulation.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

enum class TraceExport { ChromeJson, PerfettoProtobuf, Chakra };

/// The trace format `path` asks for by its extension (`.perfetto-trace` is `.pftrace` too);
/// nullopt for another file (a chart, a CSV, `.metrics.json` ...).
std::optional<TraceExport> traceExportOf(std::string_view path);

/// The extensions traceExportOf knows, for messages: ".json (Chrome/Perfetto JSON trace), ...".
std::string traceExtensions();

/// Writes `prediction` to `path` in `format` (each file atomically) and returns the files written:
/// one, or for Chakra `<path without .et>.<rank>.et` for every rank. `title` names the trace.
std::vector<std::filesystem::path> writeTraceExport(const Prediction& prediction, const std::string& path,
                                                    TraceExport format, const std::string& title);

} // namespace stagecraft
