#pragma once
// One add*Command function per stagecraft-cli command; main() wires them together.

#include "cli_common.h"

namespace stagecraft::cli {

/// Set by the command that ran; main() returns it.
struct CommandResult {
    int status = kExitOk;
};

void addListCommand(CLI::App& app, CommandResult& result);
void addValidateCommand(CLI::App& app, CommandResult& result);
void addGenerateCommand(CLI::App& app, CommandResult& result);
void addShowCommand(CLI::App& app, CommandResult& result);
void addSimulateCommand(CLI::App& app, CommandResult& result);
void addCompareCommand(CLI::App& app, CommandResult& result);
void addExportCommand(CLI::App& app, CommandResult& result);
void addLowerCommand(CLI::App& app, CommandResult& result);
void addOverlayCommand(CLI::App& app, CommandResult& result);
void addSearchCommand(CLI::App& app, CommandResult& result);
void addCalibrateCommand(CLI::App& app, CommandResult& result);
void addFidelityCommand(CLI::App& app, CommandResult& result);
void addEditCommand(CLI::App& app, CommandResult& result);

} // namespace stagecraft::cli
