#include "cli_common.h"

#include "error.h"
#include "io/file_io.h"
#include "project/project_json.h"
#include "project/project_validate.h"

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace stagecraft::cli {

void ProjectOptions::addTo(CLI::App& command) {
    command.add_option("project", projectPath,
                       "Project file (*.stagecraft.json); the built-in default project if absent");
    auto* schedule =
        command.add_option("-s,--schedule", scheduleName, "Schedule name (see `stagecraft-cli list`)");
    if (scheduleRequired) schedule->required();
    command.add_option("--set", sets, "Override a project field: --set parallel.pp=8 (repeatable)")
        ->type_name("PATH=VALUE");
}

Project loadProject(const ProjectOptions& options) {
    Project project = options.projectPath.empty() ? defaultProject() : readProject(options.projectPath);
    for (const std::string& set : options.sets) {
        const auto eq = set.find('=');
        if (eq == std::string::npos || eq == 0)
            throw ValidationError("cli.set", set, "--set '" + set + "': expected section.field=value");
        setProjectField(project, set.substr(0, eq), set.substr(eq + 1));
    }
    validateProject(project);
    return project;
}

Schedule generateFromProject(const Project& project, const std::string& scheduleName) {
    const GeneratorInfo& info = findGenerator(scheduleName);
    checkLayersFit(project, info);
    return generateSchedule(info.name, scheduleParams(project));
}

bool isScheduleFile(const std::string& path) {
    const std::filesystem::path p(path);
    if (p.extension() == ".csv") return true;
    if (p.extension() != ".json" || path.ends_with(".stagecraft.json")) return false;
    // Both are JSON: a schedule file carries the key "stagecraft_schedule", a project "stagecraft".
    const auto json = nlohmann::json::parse(readTextFile(p), nullptr, /*allow_exceptions=*/false);
    return json.is_object() && json.contains("stagecraft_schedule");
}

bool wantColor(const std::string& mode) {
    if (mode == "always") return true;
    if (mode == "never") return false;
    return ::isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
}

} // namespace stagecraft::cli
