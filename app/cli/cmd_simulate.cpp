// `stagecraft-cli simulate` (one schedule, metrics and per-device breakdown) and
// `stagecraft-cli compare` (several schedules side by side, best throughput first).
#include "commands.h"
#include "error.h"
#include "report_format.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

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

std::vector<std::string> splitNames(const std::string& list) {
    std::vector<std::string> names;
    std::stringstream in(list);
    for (std::string name; std::getline(in, name, ',');)
        if (!name.empty()) names.push_back(name);
    return names;
}

} // namespace

void addSimulateCommand(CLI::App& app, CommandResult& result) {
    auto* command =
        app.add_subcommand("simulate", "Simulate one schedule of a project and print its metrics");
    auto options = std::make_shared<SimulateOptions>();
    options->project.scheduleRequired = true;
    options->project.addTo(*command);
    addFormatFlags(*command, *options);
    command->callback([&result, options] {
        const Project project = loadProject(options->project);
        const Schedule schedule = generateFromProject(project, options->project.scheduleName);
        print({predict(project, schedule).report}, *options, true);
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
        const Project project = loadProject(options->project);
        std::vector<std::string> names = options->project.scheduleName.empty()
                                             ? project.schedules
                                             : splitNames(options->project.scheduleName);
        if (names.empty())
            throw ValidationError("cli.schedule", "--schedule",
                                  "no schedule to compare: pass --schedule a,b,c");
        std::vector<ScheduleReport> reports;
        reports.reserve(names.size());
        for (const std::string& name : names)
            reports.push_back(predict(project, generateFromProject(project, name)).report);
        // Best first: shortest iteration (highest throughput for the same work).
        std::stable_sort(
            reports.begin(), reports.end(),
            [](const ScheduleReport& a, const ScheduleReport& b) { return a.iterationUs < b.iterationUs; });
        print(reports, *options, false);
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
