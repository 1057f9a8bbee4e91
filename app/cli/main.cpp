// stagecraft-cli: the headless face of Stagecraft. Every command is a thin shell over core/.
// Exit status: 0 success, 2 bad input or usage (message on stderr), 1 other failures.
#include "commands.h"
#include "error_ids.h"

#include <cstdio>
#include <iostream>

namespace {

int run(int argc, char** argv) {
    using namespace stagecraft;
    using namespace stagecraft::cli;
    CLI::App app{"Stagecraft: design, validate and draw pipeline-parallel training schedules",
                 "stagecraft-cli"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "stagecraft-cli 0.1.0");
    CommandResult result;
    addListCommand(app, result);
    addValidateCommand(app, result);
    addGenerateCommand(app, result);
    addShowCommand(app, result);
    addSimulateCommand(app, result);
    addCompareCommand(app, result);
    addExportCommand(app, result);
    addLowerCommand(app, result);
    addOverlayCommand(app, result);
    addSearchCommand(app, result);
    addCalibrateCommand(app, result);
    addFidelityCommand(app, result);
    addEditCommand(app, result);
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return kExitBadInput;
    } catch (const Error& e) {
        std::cerr << "stagecraft-cli: " << e.message() << '\n';
        // The id's class in core's table decides: bad input (a file that cannot be read, a field
        // out of range) or a failure of the run (a file that cannot be written).
        return errorClassOf(e) == ErrorClass::Input ? kExitBadInput : kExitFailure;
    } catch (const std::exception& e) {
        std::cerr << "stagecraft-cli: internal error: " << e.what() << '\n';
        return kExitFailure;
    }
    return result.status;
}

} // namespace

int main(int argc, char** argv) {
    // Building the command table or printing a message can throw too (bad_alloc, a failing
    // stream); nothing may escape main.
    try {
        return run(argc, argv);
    } catch (...) {
        std::fputs("stagecraft-cli: internal error\n", stderr);
        return stagecraft::cli::kExitFailure;
    }
}
