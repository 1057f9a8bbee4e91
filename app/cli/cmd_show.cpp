// `stagecraft-cli show [PROJECT|SCHEDULE_FILE] [--schedule NAME] [--set ...]`: the order-only
// Gantt chart of a schedule in the terminal. Without --schedule, every schedule the project lists.
#include "commands.h"
#include "io/schedule_file.h"
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
    bool serializeOverlap = false;
};
} // namespace

void addShowCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand("show", "Draw a schedule as a text Gantt chart (one column per step)");
    auto options = std::make_shared<ShowOptions>();
    options->project.scheduleRequired = false;
    options->project.addTo(*command);
    command->add_option("--color", options->color, "Colours: auto, always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    command->add_option("--max-steps", options->maxSteps, "Cut the chart after this many steps")
        ->check(CLI::NonNegativeNumber);
    command->add_flag("--serialize-overlap", options->serializeOverlap,
                      "Read torch OVERLAP_F_B cells as their sub-actions one after the other");
    command->callback([&result, options] {
        TextGanttOptions gantt;
        gantt.color = wantColor(options->color);
        gantt.maxSteps = options->maxSteps;
        const std::string& path = options->project.projectPath;
        if (!path.empty() && isScheduleFile(path)) {
            TorchCsvOptions csv;
            if (options->serializeOverlap) csv.overlap = OverlapPolicy::Serialize;
            std::cout << renderTextGantt(readScheduleFile(path, csv), gantt);
            result.status = kExitOk;
            return;
        }
        const Project project = loadProject(options->project);
        std::vector<std::string> names = project.schedules;
        if (!options->project.scheduleName.empty()) names = {options->project.scheduleName};
        bool first = true;
        for (const std::string& name : names) {
            const Schedule schedule = generateFromProject(project, name);
            validate(schedule);
            std::cout << (first ? "" : "\n") << renderTextGantt(schedule, gantt);
            first = false;
        }
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
