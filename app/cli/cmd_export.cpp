// `stagecraft-cli export [PROJECT] -s NAME [--set ...] -o OUT`: the extension picks the format:
// .json Chrome trace (Perfetto), .svg / .tex / .tikz charts (core writers), .pdf / .png charts (the
// Qt renderer, in builds with Qt), .csv torch schedule, .metrics.json / .metrics.csv metrics.
#include "chart_file.h"
#include "commands.h"
#include "error.h"
#include "eval/chart_composition.h"
#include "eval/trace_export.h"
#include "file_io.h"
#include "io/chrome_trace.h"
#include "io/schedule_file.h"
#include "report_format.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace stagecraft::cli {

namespace {

struct ExportOptions {
    ProjectOptions project;
    std::string output;
    ChartFileOptions chart;
};

bool endsWith(const std::string& text, const std::string& suffix) {
    return text.ends_with(suffix);
}

} // namespace

void addExportCommand(CLI::App& app, CommandResult& result) {
    auto* command =
        app.add_subcommand("export", "Export a schedule: .json (Perfetto JSON trace), .pftrace (Perfetto "
                                     "protobuf), .et (Chakra, one per rank), .svg, .pdf, "
                                     ".png, .tex/.tikz (TikZ), .csv (torch), .metrics.json/.csv");
    auto options = std::make_shared<ExportOptions>();
    options->project.addTo(*command);
    command->add_option("--trace", options->project.tracePath,
                        "Measured Chrome trace drawn over its schedule in charts");
    options->project.addIterationOption(*command);
    command->add_option("-o,--output", options->output, "Output file; its extension picks the format")
        ->required();
    addChartFileOptions(*command, options->chart, true);
    command->callback([&result, options] {
        const std::string& out = options->output;
        AnalysisRequest request = loadRequest(options->project);
        if (options->chart.unitTime && isChartFile(out)) applyUnitTime(request);
        if (endsWith(out, ".csv") && !endsWith(out, ".metrics.csv")) {
            // The order alone: neither costs nor the layer split matter to it.
            writeScheduleFile(request.imported.empty()
                                  ? orderFromProject(request.project, request.project.schedules.front())
                                  : request.imported.front().schedule,
                              out);
        } else {
            const AnalysisResult evaluated = analyze(request);
            const ScheduleOutcome& outcome = onlyOutcome(evaluated);
            const Prediction& prediction = outcome.prediction;
            if (endsWith(out, ".metrics.json")) {
                writeFileAtomically(out, reportsAsJson({prediction.report}));
            } else if (endsWith(out, ".metrics.csv")) {
                writeFileAtomically(out, reportsAsCsv({prediction.report}));
            } else if (const auto format = traceExportOf(out)) {
                const auto paths =
                    writeTraceExport(prediction, out, *format, request.project.name + ": " + outcome.name);
                for (const auto& path : paths) std::cout << "wrote " << path.string() << '\n';
                result.status = kExitOk;
                return;
            } else if (isChartFile(out)) {
                writeChartFile(evaluated, options->chart, out);
            } else {
                throw ValidationError("cli.format", "--output",
                                      "'" + out + "': unknown extension; use " + traceExtensions() + ", " +
                                          chartExtensions() +
                                          ", .csv (torch schedule), .metrics.json or .metrics.csv");
            }
        }
        std::cout << "wrote " << out << '\n';
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
