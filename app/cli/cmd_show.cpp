// `stagecraft-cli show [PROJECT|SCHEDULE_FILE] [--schedule NAME] [--set ...]`: the order-only
// Gantt chart of a schedule in the terminal. Without --schedule, every schedule the project lists.
#include "commands.h"
#include "text/text_gantt.h"
#include "validate/validator.h"

#include <iostream>
#include <memory>

namespace stagecraft::cli {

namespace {
struct ShowOptions {
    ProjectOptions project;
    std::string color = "auto";
    int maxSteps = 0;
};
} // namespace

void addShowCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand("show", "Draw a schedule as a text Gantt chart (one column per step)");
    auto options = std::make_shared<ShowOptions>();
    options->project.scheduleRequired = false;
    options->project.orderOnly = true;
    options->project.addTo(*command);
    command->add_option("--color", options->color, "Colours: auto, always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    command->add_option("--max-steps", options->maxSteps, "Cut the chart after this many steps")
        ->check(CLI::NonNegativeNumber);
    command->callback([&result, options] {
        TextGanttOptions gantt;
        gantt.color = wantColor(options->color);
        gantt.maxSteps = options->maxSteps;
        // An order needs neither costs nor the layer split: only the request's orders are drawn.
        const AnalysisRequest request = loadRequest(options->project);
        bool first = true;
        auto draw = [&](const Schedule& schedule) {
            std::cout << (first ? "" : "\n") << renderTextGantt(schedule, gantt);
            first = false;
        };
        for (const std::string& name : request.project.schedules) {
            const Schedule schedule = orderFromProject(request.project, name);
            validate(schedule);
            draw(schedule);
        }
        for (const ImportedSchedule& imported : request.imported) draw(imported.schedule);
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
