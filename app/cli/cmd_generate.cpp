// `stagecraft-cli generate [PROJECT] --schedule NAME [--set ...] -o OUT.{json,csv}`.
#include "commands.h"
#include "error.h"
#include "io/schedule_file.h"
#include "validate/validator.h"

#include <iostream>
#include <memory>

namespace stagecraft::cli {

namespace {
struct GenerateOptions {
    ProjectOptions project;
    std::string output;
};
} // namespace

void addGenerateCommand(CLI::App& app, CommandResult& result) {
    auto* command =
        app.add_subcommand("generate", "Generate a schedule from a project and write it (.json or .csv)");
    auto options = std::make_shared<GenerateOptions>();
    options->project.orderOnly = true;
    options->project.acceptsScheduleFile = false;
    options->project.addTo(*command);
    command->add_option("-o,--output", options->output, "Output file: .json (Stagecraft) or .csv (torch)")
        ->required();
    command->callback([&result, options] {
        // An order depends on the schedule parameters alone: any pp and micro-batch count the
        // schedule accepts, whatever the cluster and the model (orderFromProject checks them).
        const AnalysisRequest request = loadRequest(options->project);
        if (request.project.schedules.size() != 1)
            throw ValidationError("cli.schedule", "--schedule",
                                  "generate writes one schedule: pass one name");
        const Schedule schedule = orderFromProject(request.project, request.project.schedules.front());
        validate(schedule);
        writeScheduleFile(schedule, options->output);
        std::cout << "wrote " << options->output << ": " << schedule.name << ", " << schedule.opCount()
                  << " ops\n";
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
