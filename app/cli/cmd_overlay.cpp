// `stagecraft-cli overlay [PROJECT_OR_SCHEDULE_FILE] --trace FILE... [-s NAME] [--iteration N]` (or the
// older `overlay PROJECT_OR_SCHEDULE_FILE TRACE.json`): evaluates the
// schedule with the measured trace attached (core's loadAnalysisRequest and analyze, as every other
// command) and prints how the measurement departs from the prediction: makespan, bubble, op errors
// per device and per kind, the ops that drifted most. `-o` also writes the chart with the measured
// overlay, the same chart `export --trace` writes.
#include "chart_file.h"
#include "commands.h"
#include "error.h"
#include "overlay_format.h"

#include <iostream>
#include <memory>

namespace stagecraft::cli {

namespace {

struct OverlayOptions {
    ProjectOptions project;
    bool json = false;
    std::string output;
    ChartFileOptions chart;
};

/// The evaluation of the one schedule with the trace matched to it; a trace that does not fit is
/// refused as core's overlay.mismatch (exit status 2).
AnalysisResult evaluateWithTrace(const AnalysisRequest& request) {
    if (request.project.schedules.size() + request.imported.size() > 1)
        throw ValidationError("cli.schedule", "--schedule", "overlay takes one schedule");
    AnalysisResult evaluated = analyze(request);
    onlyOutcome(evaluated); // throws the refusal, if any
    if (!evaluated.overlay)
        throw ValidationError("overlay.mismatch", "trace",
                              request.trace->path + ": " + evaluated.overlayError);
    return evaluated;
}

} // namespace

void addOverlayCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand(
        "overlay", "Compare a measured trace with the prediction of its schedule: makespan, bubble and op "
                   "errors per device and kind, the ops that drifted most");
    auto options = std::make_shared<OverlayOptions>();
    options->project.addTo(*command);
    command->get_option("project")->description(
        "Project file (*.stagecraft.json) or schedule file (torch .csv, Stagecraft .json); the built-in "
        "default project if absent");
    command->add_option("trace", options->project.tracePath,
                        "Measured trace of the schedule (the older form of --trace with one file)");
    options->project.addTraceOptions(*command);
    command->add_flag("--json", options->json, "Machine-readable JSON");
    command->add_option("-o,--output", options->output,
                        std::string("Also write the chart with the measured overlay: ") + chartExtensions());
    addChartFileOptions(*command, options->chart);
    command->callback([&result, options] {
        if (options->project.tracePath.empty() && options->project.tracePaths.empty())
            throw ValidationError("cli.trace", "--trace",
                                  "overlay needs the measured trace: --trace FILE... (one file per rank for "
                                  "torch profiler traces)");
        const std::string& out = options->output;
        if (!out.empty()) checkChartFile(out); // before the evaluation, which may take long
        const AnalysisRequest request = loadRequest(options->project);
        const AnalysisResult evaluated = evaluateWithTrace(request);
        // The chart first: a file that cannot be written fails the command before it prints.
        if (!out.empty()) writeChartFile(evaluated, options->chart, out);
        if (options->json)
            std::cout << overlayAsJson(evaluated, *request.trace);
        else
            std::cout << overlayAsText(evaluated, *request.trace);
        // stdout stays pure JSON under --json.
        if (!out.empty()) (options->json ? std::cerr : std::cout) << "wrote " << out << '\n';
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
