// `stagecraft-cli lower [PROJECT|SCHEDULE_FILE] -s NAME [--set ...] [--semantics nccl|mpi]
// [-o out.csv|out.json|out.txt]`: the per-rank programs a runtime executes (compute, sends and
// receives with peer, tag, buffer slot and bytes, gradient syncs, optimizer steps), the activation
// buffers per stage, and the replay's verdict. A deadlock exits with status 2 and names the ring
// of waiting ranks. A torch compute+comms CSV is read as programs and checked the same way.
// `--like torch` prints the program torch 2.15 itself runs for the schedule (passes/lower_torch.h).
#include "commands.h"
#include "error.h"
#include "file_io.h"
#include "file_kind.h"
#include "io/programs_json.h"
#include "io/schedule_file.h"
#include "io/torch_comms_csv.h"
#include "passes/lower.h"
#include "passes/lower_torch.h"
#include "passes/replay.h"
#include "text/text_programs.h"
#include "validate/validator.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

namespace stagecraft::cli {

namespace {

struct LowerCliOptions {
    ProjectOptions project;
    std::string semantics = "nccl";
    std::string output;
    std::uint64_t bytes = 0;
    bool noGroups = false;
    bool noTail = false;
    std::string like = "stagecraft";
    bool semanticsGiven = false;
    bool torchDeferRecv = false;
    int torchMaxOutstandingSends = -1;
};

/// The programs and, for torch's lowering, the schedule whose slots its CSV writes as torch does.
struct LowerResult {
    Lowered lowered;
    std::optional<Schedule> slotsOf;
};

std::string extensionOf(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

LowerResult lowerFromOptions(const LowerCliOptions& options) {
    LowerOptions lowerOptions;
    const std::string& path = options.project.projectPath;
    const bool file = !path.empty() && isScheduleFile(path);
    const bool likeTorch = options.like == "torch";
    if (file && extensionOf(path) == ".csv") {
        requireFileKind(path, FileKind::TorchCsv, "a torch CSV schedule"); // a trace named .csv
        const std::string text = readTextFile(path);
        if (looksLikeTorchCommsCsv(text) && likeTorch)
            throw ValidationError("cli.like", "--like",
                                  "'" + path +
                                      "' is already lowered (compute+comms): torch runs it as written; "
                                      "read it without --like torch");
        if (looksLikeTorchCommsCsv(text)) {
            TorchCommsCsvOptions csv;
            csv.overlap = options.project.serializeOverlap ? OverlapPolicy::Serialize : OverlapPolicy::Refuse;
            csv.name = std::filesystem::path(path).filename().string();
            const Lowered probe = parseTorchCommsCsv(text, path, csv);
            if (options.bytes > 0) {
                csv.lower.boundaryBytes.assign(std::size_t(std::max(probe.stagesPerPipe - 1, 0)),
                                               options.bytes);
                return {parseTorchCommsCsv(text, path, csv), std::nullopt};
            }
            return {probe, std::nullopt};
        }
    }
    // A compute-only schedule: a file, or a registered schedule's order (core's input path; an
    // order needs neither the cluster nor the layer split).
    const AnalysisRequest request = loadRequest(options.project);
    if (request.imported.empty() && request.project.schedules.size() != 1)
        throw ValidationError("cli.schedule", "--schedule", "lower takes one schedule: pass one name");
    Schedule schedule = request.imported.empty()
                            ? orderFromProject(request.project, request.project.schedules.front())
                            : request.imported.front().schedule;
    if (options.bytes > 0)
        lowerOptions.boundaryBytes.assign(std::size_t(std::max(schedule.stagesPerPipe - 1, 0)),
                                          options.bytes);
    if (likeTorch) {
        // torch adds its own gradient reduction and runs no optimizer: no iteration tail. A file
        // is loaded into torch's action runtime; a registered schedule runs as its torch class.
        const TorchRuntime runtime = request.imported.empty()
                                         ? torchRuntimeOf(request.project.schedules.front())
                                         : TorchRuntime::ScheduleRuntime;
        TorchLowerOptions torch;
        torch.lower = lowerOptions;
        torch.deferRecv = options.torchDeferRecv;
        torch.maxOutstandingSends = options.torchMaxOutstandingSends;
        Lowered lowered = lowerLikeTorch(schedule, runtime, torch);
        return {std::move(lowered), std::move(schedule)};
    }
    return {options.noTail ? lower(schedule, lowerOptions) : lowerIteration(schedule, lowerOptions),
            std::nullopt};
}

std::string summary(const Lowered& l, const ReplayOptions& replayOptions) {
    std::size_t transfers = 0;
    for (const Program& p : l.programs)
        for (const Instruction& in : p.instructions) transfers += in.kind == InstrKind::Send;
    std::string text = "lowered '" + l.name + "': " + std::to_string(l.ranks) + " ranks, " +
                       std::to_string(l.instructionCount()) + " instructions, " + std::to_string(transfers) +
                       " transfers\nactivation buffers per stage:";
    for (int pipe = 0; pipe < l.pipes; ++pipe)
        for (int stage = 0; stage < l.stagesPerPipe; ++stage)
            text += (pipe == 0 && stage == 0 ? " " : ", ") + stageName(pipe, stage) + " " +
                    std::to_string(l.buffers[std::size_t(pipe * l.stagesPerPipe + stage)]);
    text += "\nreplay: deadlock-free under " + std::string(semanticsName(replayOptions.semantics)) +
            " semantics" + (replayOptions.groups ? "" : ", each transfer posted alone") + "\n";
    return text;
}

} // namespace

void addLowerCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand(
        "lower",
        "Lower a schedule to per-rank programs (compute, send/recv, grad sync, optimizer) and replay them");
    auto options = std::make_shared<LowerCliOptions>();
    options->project.scheduleRequired = true;
    options->project.orderOnly = true;
    options->project.addTo(*command);
    command
        ->add_option("--semantics", options->semantics,
                     "Transport the replay proves deadlock freedom for: nccl (a send and its receive block "
                     "until both are posted) or mpi (non-blocking sends)")
        ->check(CLI::IsMember({"nccl", "mpi"}));
    command->add_flag(
        "--no-groups", options->noGroups,
        "Replay each transfer posted alone (torch's runtime) instead of adjacent transfers together");
    command->add_flag("--no-tail", options->noTail,
                      "Lower the schedule without gradient syncs and optimizer steps");
    command->add_option("--bytes", options->bytes, "Bytes of every activation transfer (default: 1 unit)")
        ->check(positiveNumber());
    command
        ->add_option("--like", options->like,
                     "Whose lowering: stagecraft (transfers in Stagecraft's one global order) or torch (the "
                     "program torch 2.15 runs: its runtime's lowering, or the loop of ScheduleGPipe and "
                     "Schedule1F1B for gpipe and 1f1b; replayed under MPI semantics, one transfer at a time, "
                     "unless --semantics is given)")
        ->check(CLI::IsMember({"stagecraft", "torch"}));
    command->add_flag("--torch-defer-recv", options->torchDeferRecv,
                      "With --like torch: torch's defer_pp_recv (each receive just before its consumer)");
    command
        ->add_option("--torch-max-outstanding-sends", options->torchMaxOutstandingSends,
                     "With --like torch: torch's max_outstanding_sends (waits move earlier to keep at most N "
                     "sends pending per rank)")
        ->check(nonNegativeNumber());
    command->add_option("-o,--output", options->output,
                        "Write the programs: .csv torch compute+comms, .json, .txt the listing");
    auto* semantics = command->get_option("--semantics");
    command->callback([&result, options, semantics] {
        if (options->like != "torch" && (options->torchDeferRecv || options->torchMaxOutstandingSends >= 0))
            throw ValidationError(
                "cli.like", "--like",
                "--torch-defer-recv and --torch-max-outstanding-sends are options of torch's "
                "lowering: add --like torch");
        const LowerResult lowerResult = lowerFromOptions(*options);
        const Lowered& lowered = lowerResult.lowered;
        // torch's posts never block its rank (isend/irecv, waited later): by default its programs
        // are replayed with non-blocking sends, each transfer posted alone.
        const bool torchDefault = options->like == "torch" && semantics->count() == 0;
        const ReplayOptions replayOptions{options->semantics == "mpi" || torchDefault ? CommSemantics::Mpi
                                                                                      : CommSemantics::Nccl,
                                          !options->noGroups && !torchDefault};
        requireDeadlockFree(lowered, replayOptions);
        if (options->output.empty()) {
            std::cout << formatPrograms(lowered) << summary(lowered, replayOptions);
            result.status = kExitOk;
            return;
        }
        const std::string ext = extensionOf(options->output);
        std::string content;
        if (ext == ".csv")
            content = lowerResult.slotsOf ? programsToTorchCommsCsv(lowered, *lowerResult.slotsOf)
                                          : programsToTorchCommsCsv(lowered);
        else if (ext == ".json")
            content = programsToJson(lowered);
        else if (ext == ".txt")
            content = formatPrograms(lowered);
        else
            throw ValidationError(
                "cli.format", options->output,
                "'" + options->output +
                    "': " + (ext.empty() ? std::string("no extension") : "unknown extension '" + ext + "'") +
                    "; lower writes .csv (torch compute+comms), .json or .txt");
        writeFileAtomically(options->output, content);
        std::cout << summary(lowered, replayOptions) << "wrote " << options->output << '\n';
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
