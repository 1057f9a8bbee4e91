// `stagecraft-cli validate FILE`: check a schedule file (torch CSV or schedule JSON) or a project
// file (and every schedule it lists) and report every problem found.
#include "commands.h"
#include "error.h"
#include "eval/evaluation_input.h"
#include "io/schedule_file.h"
#include "validate/validator.h"

#include <algorithm>
#include <iostream>
#include <memory>

namespace stagecraft::cli {

namespace {

struct ValidateOptions {
    std::string path;
    bool serializeOverlap = false;
};

std::string summary(const Schedule& s) {
    return "p=" + std::to_string(s.devices) + " m=" + std::to_string(s.microbatches) +
           " stages/pipe=" + std::to_string(s.stagesPerPipe) + (s.pipes > 1 ? " pipes=2" : "") +
           (s.splitBackward ? " split-backward" : "") + ", " + std::to_string(s.opCount()) + " ops";
}

/// Prints the problems; returns true when there were none.
bool report(const Schedule& s, const std::string& what) {
    const auto problems = findProblems(s);
    if (problems.empty()) {
        std::cout << "ok: " << what << ": " << summary(s) << '\n';
        return true;
    }
    std::cerr << "invalid: " << what << ": " << summary(s) << '\n';
    for (const Problem& p : problems) std::cerr << "  [" << p.id << "] " << p.message << '\n';
    return false;
}

} // namespace

void addValidateCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand("validate", "Check a schedule file (.csv, .json) or a project file");
    auto options = std::make_shared<ValidateOptions>();
    command->add_option("file", options->path, "Schedule (torch CSV or Stagecraft JSON) or project file")
        ->required();
    command->add_flag("--serialize-overlap", options->serializeOverlap,
                      "Read torch OVERLAP_F_B cells as their sub-actions one after the other");
    command->callback([&result, options] {
        if (isScheduleFile(options->path)) {
            TorchCsvOptions csv;
            if (options->serializeOverlap) csv.overlap = OverlapPolicy::Serialize;
            // Reading validates; a schedule that reads is valid, but report its shape.
            const Schedule s = readScheduleFile(options->path, csv);
            result.status = report(s, options->path) ? kExitOk : kExitBadInput;
            return;
        }
        ProjectOptions projectOptions;
        projectOptions.projectPath = options->path;
        const Project project = loadProject(projectOptions);
        std::cout << "ok: project " << options->path << " ('" << project.name << "')\n";
        bool allValid = true;
        const auto availability = scheduleAvailability(project);
        for (const std::string& name : project.schedules) {
            const auto it = std::find_if(availability.begin(), availability.end(),
                                         [&](const auto& a) { return a.name == findGenerator(name).name; });
            if (it != availability.end() && it->refusal) {
                std::cerr << "invalid: " << name << ": " << it->refusal->message << '\n';
                allValid = false;
                continue;
            }
            try {
                allValid &= report(orderFromProject(project, name), name);
            } catch (const ValidationError& e) {
                std::cerr << "invalid: " << name << ": " << e.message() << '\n';
                allValid = false;
            }
        }
        result.status = allValid ? kExitOk : kExitBadInput;
    });
}

} // namespace stagecraft::cli
