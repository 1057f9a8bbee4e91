#pragma once
// What an export is asked to do, and the one table of its command-line options: `stagecraft-cli
// export` (CLI11) and `stagecraft --export` (QCommandLineParser) both add the options of
// exportOptions() and hand what their parser collected to exportRequestFrom, so both take the same
// options, check them with the same rules and messages, and produce the same ExportRequest, which
// writeExport (export_files.h) turns into the same bytes.

#include "eval/chart_composition.h"
#include "eval/evaluation_input.h"
#include "eval/option_table.h"

#include <span>
#include <string>
#include <string_view>

namespace stagecraft {

struct ExportRequest {
    EvaluationInput input; ///< the project or schedule file, --schedule, --set, the traces
    std::string output;    ///< the file to write; its extension picks the format
    ChartSettings chart;   ///< palette, lanes, subtitle, cost line, unit time, measured rows
    double widthPt = kDoubleColumnPt;
    double dpi = 300; ///< PNG charts
};

/// Every option of an export besides the input file and the output (each front end names those
/// its own way: a positional FILE; `-o` in the CLI, `--export` in the app).
std::span<const OptionSpec> exportOptions();

/// The help of the input file and of the output, for both front ends.
inline constexpr std::string_view kExportInputHelp =
    "Project file (*.stagecraft.json) or schedule file (torch .csv, Stagecraft .json); the built-in "
    "default project if absent";
inline constexpr std::string_view kExportOutputHelp =
    "Output file; its extension picks the format: .svg, .pdf, .png, .tex/.tikz (charts), .json (Perfetto "
    "JSON trace), .pftrace (Perfetto protobuf), .et (Chakra, one per rank), .csv (torch schedule), "
    ".metrics.json/.metrics.csv";

/// The request of `inputPath` (empty: the built-in project), `output` and the options given.
/// Throws ValidationError "option.value" (a value that breaks its option's rule, naming the
/// option, the value and the rule) or "option.conflict" (--width with --columns).
ExportRequest exportRequestFrom(const std::string& inputPath, const std::string& output,
                                const OptionValues& given);

} // namespace stagecraft
