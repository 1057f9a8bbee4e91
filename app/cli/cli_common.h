#pragma once
// What every stagecraft-cli command shares: loading a project with --set overrides, loading a
// schedule from a project or a schedule file, and the exit-status convention.

#include "generators/registry.h"
#include "project/project.h"

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace stagecraft::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  ///< runtime failure (cannot write a file, ...)
inline constexpr int kExitBadInput = 2; ///< usage error or invalid input

/// Options of commands that start from a project: an optional project file (the built-in default
/// project when absent), a schedule name and `--set section.field=value` overrides.
struct ProjectOptions {
    std::string projectPath;
    std::string scheduleName;
    std::vector<std::string> sets;
    bool scheduleRequired = true;

    void addTo(CLI::App& command);
};

/// Read (or default) the project, apply the overrides in order, validate it.
Project loadProject(const ProjectOptions& options);

/// The schedule the options name, generated from the project, with the layer split checked.
Schedule generateFromProject(const Project& project, const std::string& scheduleName);

/// True when `path` names a schedule file (torch CSV, or Stagecraft schedule JSON) rather than a
/// project file.
bool isScheduleFile(const std::string& path);

/// "auto" = colours when stdout is a terminal and NO_COLOR is unset.
bool wantColor(const std::string& mode);

} // namespace stagecraft::cli
