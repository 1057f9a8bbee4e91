// `stagecraft-cli export [PROJECT] -s NAME [--set ...] -o OUT`: the extension picks the format:
// .json Chrome trace (Perfetto), .svg / .tex / .tikz charts (core writers), .pdf / .png charts (the
// Qt renderer, in builds with Qt), .csv torch schedule, .metrics.json / .metrics.csv metrics.
#include "chart_file.h"
#include "commands.h"
#include "error.h"
#include "eval/chart_composition.h"
#include "file_io.h"
#include "io/chakra_trace.h"
#include "io/chrome_trace.h"
#include "io/perfetto_trace.h"
#include "io/schedule_file.h"
#include "passes/lower.h"
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

std::vector<CounterTrack> memoryCounters(const MemoryReport& memory, bool unitless) {
    std::vector<CounterTrack> tracks;
    for (std::size_t d = 0; d < memory.devices.size(); ++d) {
        CounterTrack track;
        track.device = int(d);
        track.name = unitless ? "activations (M_a)" : "memory (GiB)";
        for (const auto& [time, bytes] : memory.devices[d].curve)
            track.points.emplace_back(time, unitless ? bytes : bytes / double(1ull << 30));
        tracks.push_back(std::move(track));
    }
    return tracks;
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
            } else if (endsWith(out, ".et")) {
                // Chakra: one file per rank, OUT's stem with the rank (`zb.et` -> zb.0.et, zb.1.et ...).
                const std::string prefix = out.substr(0, out.size() - 3);
                const auto paths = writeChakraTraces(lower(prediction.schedule), prediction.timeline, prefix);
                std::cout << "wrote " << paths.size() << " Chakra traces, " << prefix << ".0.et ... "
                          << prefix << "." << paths.size() - 1 << ".et\n";
                result.status = kExitOk;
                return;
            } else if (endsWith(out, ".pftrace") || endsWith(out, ".perfetto-trace")) {
                writePerfettoTrace(prediction.timeline, out, request.project.name + ": " + outcome.name);
            } else if (endsWith(out, ".json")) {
                ChromeTraceOptions trace;
                trace.title = request.project.name + ": " + outcome.name;
                trace.counters = memoryCounters(prediction.report.memory, prediction.setup.unitless);
                writeChromeTrace(prediction.timeline, out, trace);
            } else if (isChartFile(out)) {
                writeChartFile(evaluated, options->chart, out);
            } else {
                throw ValidationError(
                    "cli.format", "--output",
                    "'" + out +
                        "': unknown extension; use .json (Chrome/Perfetto JSON trace), "
                        ".pftrace (Perfetto protobuf trace), .et (Chakra execution traces, one per rank), " +
                        chartExtensions() + ", .csv (torch schedule), .metrics.json or .metrics.csv");
            }
        }
        std::cout << "wrote " << out << '\n';
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
