// `stagecraft-cli export [FILE] [options] -o OUT`: CLI11 over core's export (eval/export_files.h).
// The options are core's table (eval/export_request.h), shared with `stagecraft --export`, so both
// programs take the same options and write the same files.
#include "commands.h"
#include "eval/export_files.h"
#include "option_table_cli.h"
#include "raster_export.h"
#include "sqlite_rank_reader.h"

#include <iostream>
#include <memory>

namespace stagecraft::cli {

namespace {

struct ExportCommand {
    std::string input;
    std::string output;
    std::unique_ptr<CliOptionTable> options;
};

} // namespace

void addExportCommand(CLI::App& app, CommandResult& result) {
    auto* command =
        app.add_subcommand("export", "Export a schedule: .json (Perfetto JSON trace), .pftrace (Perfetto "
                                     "protobuf), .et (Chakra, one per rank), .svg, .pdf, "
                                     ".png, .tex/.tikz (TikZ), .csv (torch), .metrics.json/.csv");
    auto state = std::make_shared<ExportCommand>();
    command->add_option("project", state->input, std::string(kExportInputHelp));
    command->add_option("-o,--output", state->output, std::string(kExportOutputHelp))->required();
    state->options = std::make_unique<CliOptionTable>(*command, exportOptions());
    command->callback([&result, state] {
        ExportRequest request = exportRequestFrom(state->input, state->output, state->options->values());
        request.input.sqliteReader = sqliteRankReader();
        for (const auto& path : writeExport(request, &writeRasterChart))
            std::cout << "wrote " << path.string() << '\n';
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
