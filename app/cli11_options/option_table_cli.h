#pragma once
// CLI11 over core's option tables (eval/option_table.h): every spec becomes a CLI11 option with
// its names, value name and help, and no check of its own, so that core's rules and messages
// apply, the same as in the desktop application's command line.

#include "eval/option_table.h"

#include <CLI/CLI.hpp>
#include <span>
#include <utility>
#include <vector>

namespace stagecraft::cli {

class CliOptionTable {
  public:
    /// Adds every option of `table` to `command` (the table must outlive this object).
    CliOptionTable(CLI::App& command, std::span<const OptionSpec> table);

    /// What the parse collected, for core's parse-to-request function.
    OptionValues values() const;

  private:
    std::vector<std::pair<const OptionSpec*, CLI::Option*>> m_options;
};

} // namespace stagecraft::cli
