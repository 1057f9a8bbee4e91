// `stagecraft-cli simulate` (one schedule, metrics and per-device breakdown) and
// `stagecraft-cli compare` (several schedules side by side, best throughput first). Both take a
// project with schedule names or a schedule file; core's analyze() does the work.
#include "commands.h"
#include "error.h"
#include "report_format.h"

#include <algorithm>
#include <iostream>
#include <memory>

namespace stagecraft::cli {

namespace {

struct SimulateOptions {
    ProjectOptions project;
    bool json = false;
    bool csv = false;
};

void addFormatFlags(CLI::App& command, SimulateOptions& options) {
    auto* json = command.add_flag("--json", options.json, "Machine-readable JSON");
    command.add_flag("--csv", options.csv, "CSV, one row per schedule")->excludes(json);
}

void print(const std::vector<ScheduleReport>& reports, const SimulateOptions& options, bool breakdown) {
    if (options.json)
        std::cout << reportsAsJson(reports);
    else if (options.csv)
        std::cout << reportsAsCsv(reports);
    else {
        std::cout << reportsAsTable(reports);
        if (breakdown)
            for (const auto& r : reports) std::cout << '\n' << deviceBreakdown(r);
    }
}

} // namespace

void addSimulateCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand(
        "simulate", "Simulate one schedule (of a project, or a schedule file) and print its metrics");
    auto options = std::make_shared<SimulateOptions>();
    options->project.scheduleRequired = true;
    options->project.addTo(*command);
    addFormatFlags(*command, *options);
    command->callback([&result, options] {
        AnalysisRequest request = loadRequest(options->project);
        request.memory = MemoryDetail::PeaksOnly; // every format prints peaks, never curves
        if (request.project.schedules.size() + request.imported.size() > 1)
            throw ValidationError("cli.schedule", "--schedule",
                                  "simulate takes one schedule; use `compare` for several");
        AnalysisResult evaluated = analyze(request);
        onlyOutcome(evaluated); // throws the refusal, if any
        // Moved, not copied: the report is all that is printed.
        std::vector<ScheduleReport> reports;
        reports.push_back(std::move(evaluated.outcomes.front().prediction.report));
        print(reports, *options, true);
        result.status = kExitOk;
    });
}

void addCompareCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand("compare", "Simulate several schedules and compare them, best first");
    auto options = std::make_shared<SimulateOptions>();
    options->project.scheduleRequired = false;
    options->project.addTo(*command);
    addFormatFlags(*command, *options);
    command->callback([&result, options] {
        AnalysisRequest request = loadRequest(options->project);
        request.memory = MemoryDetail::PeaksOnly;
        if (request.project.schedules.empty() && request.imported.empty())
            throw ValidationError("cli.schedule", "--schedule",
                                  "no schedule to compare: pass --schedule a,b,c");
        AnalysisResult evaluated = analyze(request);
        // A refused schedule is an error of the input: name the first one.
        if (!evaluated.refusals.empty()) throwRefusal(evaluated.refusals.front());
        std::vector<ScheduleReport> reports;
        reports.reserve(evaluated.outcomes.size());
        for (ScheduleOutcome& o : evaluated.outcomes) reports.push_back(std::move(o.prediction.report));
        // Best first: shortest iteration (highest throughput for the same work).
        std::stable_sort(
            reports.begin(), reports.end(),
            [](const ScheduleReport& a, const ScheduleReport& b) { return a.iterationUs < b.iterationUs; });
        print(reports, *options, false);
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
