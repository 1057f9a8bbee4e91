// `stagecraft-cli show [PROJECT|SCHEDULE_FILE] [--schedule NAME] [--set ...]`: the order-only
// Gantt chart of a schedule in the terminal. Without --schedule, every schedule the project lists.
#include "commands.h"
#include "passes/lower.h"
#include "text/text_gantt.h"
#include "text/text_programs.h"
#include "validate/validator.h"

#include <iostream>
#include <memory>

namespace stagecraft::cli {

namespace {
struct ShowOptions {
    ProjectOptions project;
    std::string color = "auto";
    int maxSteps = 0;
    bool comm = false;
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
        ->check(nonNegativeNumber());
    command->add_flag("--comm", options->comm,
                      "Also show each rank's lowered program: sends, receives (posted together in "
                      "brackets), gradient syncs and optimizer steps (see `stagecraft-cli lower`)");
    command->callback([&result, options] {
        TextGanttOptions gantt;
        gantt.color = wantColor(options->color);
        gantt.maxSteps = options->maxSteps;
        // An order needs neither costs nor the layer split: only the request's orders are drawn.
        const AnalysisRequest request = loadRequest(options->project);
        bool first = true;
        auto draw = [&](const Schedule& schedule) {
            std::cout << (first ? "" : "\n") << renderTextGantt(schedule, gantt);
            if (!schedule.notes.empty()) std::cout << schedule.notes << '\n';
            if (options->comm) {
                CommViewOptions view;
                view.maxInstructions = options->maxSteps;
                std::cout << '\n' << formatCommView(lowerIteration(schedule), view);
            }
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
