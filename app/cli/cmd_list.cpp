// `stagecraft-cli list`: the registered schedules and their parameters.
#include "commands.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace stagecraft::cli {

void addListCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand("list", "List the schedules and their parameters");
    auto json = std::make_shared<bool>(false);
    command->add_flag("--json", *json, "Machine-readable output");
    command->callback([&result, json] {
        if (*json) {
            nlohmann::ordered_json out = nlohmann::ordered_json::array();
            for (const GeneratorInfo& info : generators()) {
                nlohmann::ordered_json params = nlohmann::ordered_json::array();
                for (const ParamSpec& spec : info.params)
                    params.push_back({{"name", spec.name},
                                      {"field", spec.field},
                                      {"min", spec.min},
                                      {"max", spec.max},
                                      {"default", spec.defaultValue},
                                      {"help", spec.help}});
                out.push_back({{"name", info.name},
                               {"title", info.title},
                               {"summary", info.summary},
                               {"constraints", info.constraints},
                               {"pipes", info.pipes},
                               {"split_backward", info.splitBackward},
                               {"params", params}});
            }
            std::cout << out.dump(2) << '\n';
        } else {
            for (const GeneratorInfo& info : generators()) {
                std::cout << info.name << "  " << info.title << "\n    " << info.summary
                          << "\n    constraints: " << info.constraints << "\n    parameters:";
                for (const ParamSpec& spec : info.params)
                    std::cout << ' ' << spec.field << " (" << spec.min << ".." << spec.max << ", default "
                              << spec.defaultValue << ")";
                std::cout << "\n\n";
            }
        }
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
