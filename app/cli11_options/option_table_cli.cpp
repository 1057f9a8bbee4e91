#include "option_table_cli.h"

#include <string>

namespace stagecraft::cli {

namespace {

/// "-s,--schedule,--alias" in CLI11's spelling.
std::string cliNames(const OptionSpec& spec) {
    std::string names;
    if (spec.shortName != 0) names = std::string("-") + spec.shortName + ",";
    names += "--" + std::string(spec.name);
    if (!spec.alias.empty()) names += ",--" + std::string(spec.alias);
    return names;
}

} // namespace

CliOptionTable::CliOptionTable(CLI::App& command, std::span<const OptionSpec> table) {
    for (const OptionSpec& spec : table) {
        const std::string help(spec.help);
        CLI::Option* option = nullptr;
        if (spec.arity == OptionArity::Flag) {
            option = command.add_flag(cliNames(spec), help);
        } else {
            option = command.add_option(cliNames(spec), help)->type_name(std::string(spec.valueName));
            // Every value reaches core, which refuses a one-value option given twice.
            option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
            if (spec.arity == OptionArity::Many) option->expected(1, -1);
        }
        m_options.emplace_back(&spec, option);
    }
}

OptionValues CliOptionTable::values() const {
    OptionValues values;
    for (const auto& [spec, option] : m_options) {
        if (spec->arity == OptionArity::Flag) {
            for (std::size_t i = 0; i < option->count(); ++i) values.add(spec->name, "");
        } else {
            for (const std::string& value : option->results()) values.add(spec->name, value);
        }
    }
    return values;
}

} // namespace stagecraft::cli
