// `stagecraft-cli edit [PROJECT | SCHEDULE_FILE] [-s NAME] [--edits LIST] [--move ...] [--split ...]
// ... [-o OUT.csv|OUT.json] [--save-edits LIST]`: hand edits of a schedule's order, applied in the
// order given, each printed with what it changed (makespan, bubble, peak memory) or what it broke.
// The edits and their rules are core's (edit/, docs/editing.md); this file reads flags and prints.
#include "commands.h"
#include "edit/editor_costs.h"
#include "edit/fill_bubbles.h"
#include "edit/repair.h"
#include "edit/schedule_editor.h"
#include "error.h"
#include "file_io.h"
#include "io/edit_list.h"
#include "io/schedule_file.h"
#include "number_text.h"
#include "sim/cost_model.h"
#include "sim/memory_model.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

namespace stagecraft::cli {

namespace {

constexpr const char* kEditHelp = R"(Edits, applied in the order given (docs/editing.md):
  --move OP:after:OP | OP:before:OP | OP:to:INDEX   move an op within its device's order
  --shift OP:+N | OP:-N                             move an op N places later / earlier
  --swap OP:OP                                      two neighbours of one device trade places
  --split OP | all                                  a whole backward becomes I then W
  --merge OP | all                                  an I and the W right after it become one backward
  -e, --edit TEXT                                   any edit in its text form: "move 1W3 after 1F5",
                                                    "pipe 5 to 1" (a micro-batch onto the other pipe),
                                                    "add 2SYNC after 2W7", "drop 2SYNC" (a stage's
                                                    gradient sync or, as 2OPT, optimizer step)
OP is an op's name: <stage><kind><micro-batch>, as 1W3 (stage 1's W of micro-batch 3), 2I4 or 2B4
(a backward), p1:3F2 on a second pipe; 2SYNC and 2OPT are stage 2's gradient sync and optimizer step.
With sequence slices (seq1f1b, seq1f1b-i, terapipe) a compute op names its slice: 1W3.1 is slice 1 of micro-batch 3.
)";

struct EditOptions {
    ProjectOptions project;
    std::string editsPath; ///< --edits: an edit list file (base and edits)
    std::vector<std::string> moves, shifts, swaps, splits, merges, texts;
    std::string output;
    std::string saveEdits;
    bool unit = false;
    bool fillBubbles = false;
    bool compact = false;
    bool repair = false;
};

/// "1W3:after:1F5" -> "move 1W3 after 1F5". A ':' inside an op name ("p1:3F2") stays.
std::string colonForm(const std::string& kind, const std::string& value) {
    std::vector<std::string> parts;
    std::size_t begin = 0;
    while (true) {
        const std::size_t colon = value.find(':', begin);
        std::string part =
            value.substr(begin, colon == std::string::npos ? std::string::npos : colon - begin);
        const bool pipePrefix = part.size() >= 2 && part[0] == 'p' &&
                                part.find_first_not_of("0123456789", 1) == std::string::npos;
        if (pipePrefix && colon != std::string::npos) {
            const std::size_t next = value.find(':', colon + 1);
            part = value.substr(begin, next == std::string::npos ? std::string::npos : next - begin);
            parts.push_back(part);
            if (next == std::string::npos) break;
            begin = next + 1;
            continue;
        }
        parts.push_back(part);
        if (colon == std::string::npos) break;
        begin = colon + 1;
    }
    std::string text = kind;
    for (const std::string& part : parts) text += " " + part;
    return text;
}

/// The edits of the flags, in the order they were given on the command line, ops named as a
/// schedule of `slices` sequence slices names them.
std::vector<std::pair<std::string, Edit>> flagEdits(CLI::App& command, const EditOptions& options,
                                                    int slices) {
    const std::map<std::string, std::pair<const char*, const std::vector<std::string>*>> flags{
        {"--move", {"move", &options.moves}},    {"--shift", {"shift", &options.shifts}},
        {"--swap", {"swap", &options.swaps}},    {"--split", {"split", &options.splits}},
        {"--merge", {"merge", &options.merges}}, {"--edit", {"", &options.texts}}};
    std::map<std::string, std::size_t> used;
    std::vector<std::pair<std::string, Edit>> edits;
    for (const CLI::Option* option : command.parse_order()) {
        const auto flag = flags.find(option->get_name());
        if (flag == flags.end()) continue;
        const auto& [kind, values] = flag->second;
        const std::size_t i = used[flag->first]++;
        if (i >= values->size()) continue;
        const std::string& value = (*values)[i];
        const std::string text = *kind ? colonForm(kind, value) : value;
        edits.emplace_back(text, parseEdit(text, flag->first + " " + value, slices));
    }
    return edits;
}

struct Figures {
    double makespan = 0, bubble = 0, peak = 0;
};

enum class Quantity { Time, Share, Memory };

/// How figures print: in units and activations (unit costs), or in ms and GiB (a project's costs).
struct Units {
    bool physical = false;

    std::string text(Quantity quantity, double value) const {
        char buffer[48];
        if (quantity == Quantity::Share)
            std::snprintf(buffer, sizeof buffer, "%.4g%%", value * 100);
        else if (quantity == Quantity::Memory && physical)
            return gibText(value);
        else if (quantity == Quantity::Time && physical)
            return durationText(value);
        else
            return formatSignificant(value); // units and activations, four digits as every time
        return buffer;
    }

    /// "makespan 30 -> 29 (-1)"; a share's change in points.
    std::string change(const char* what, Quantity quantity, double before, double after) const {
        std::string out = std::string(what) + " " + text(quantity, before) + " -> " + text(quantity, after);
        if (after == before) return out;
        char points[48];
        std::snprintf(points, sizeof points, "%.4g pt", (after - before) * 100);
        const std::string delta =
            quantity == Quantity::Share ? std::string(points) : text(quantity, after - before);
        return out + " (" + (after > before ? "+" : "") + delta + ")";
    }

    std::string changes(const Figures& before, const Figures& after) const {
        return change("makespan", Quantity::Time, before.makespan, after.makespan) + ", " +
               change("bubble", Quantity::Share, before.bubble, after.bubble) + ", " +
               change("peak", Quantity::Memory, before.peak, after.peak);
    }
};

/// Where the edits start and which they are: an edit list file, a schedule file, or a
/// project's schedule; the flags' edits follow the file's.
struct EditInput {
    EditBase base;
    Schedule schedule;
    std::vector<std::pair<std::string, Edit>> edits;
};

EditInput loadEditInput(CLI::App& command, const EditOptions& options) {
    EditInput input;
    EditBase& base = input.base;
    Schedule& schedule = input.schedule;
    auto& edits = input.edits;
    const ProjectOptions& in = options.project;
    if (!options.editsPath.empty()) {
        if (!in.projectPath.empty() || !in.scheduleName.empty())
            throw ValidationError("cli.schedule", "--edits",
                                  "--edits names the schedule its edits start from: pass no project, "
                                  "schedule file or --schedule with it");
        const EditList list = parseEditList(readTextFile(options.editsPath), options.editsPath);
        base = list.base;
        schedule = loadEditBase(base, std::filesystem::path(options.editsPath).parent_path());
        const ListedEdits listed = readListEdits(list, schedule.sequenceSlices);
        for (std::size_t i = 0; i < listed.edits.size(); ++i)
            edits.emplace_back(listed.texts[i], listed.edits[i]);
    } else if (!in.projectPath.empty() && isScheduleFile(in.projectPath)) {
        if (!in.scheduleName.empty())
            throw ValidationError("cli.schedule", "--schedule",
                                  "a schedule file is the schedule: pass no --schedule with it");
        base.file = std::filesystem::absolute(in.projectPath).string();
        schedule = readScheduleFile(in.projectPath);
    } else {
        if (splitNames(in.scheduleName).size() != 1)
            throw ValidationError("cli.schedule", "--schedule",
                                  "edit starts from one schedule: pass --schedule NAME or a schedule file");
        const Project project = loadProject(in);
        base.schedule = splitNames(in.scheduleName).front();
        base.params = scheduleParams(project);
        schedule = generateFromProject(project, base.schedule);
    }
    for (auto& edit : flagEdits(command, options, schedule.sequenceSlices)) edits.push_back(std::move(edit));

    return input;
}

/// The costs the editor times with: the project's (a project given as input or with --project),
/// else unit costs. The editor takes them in the split convention (B and W apart), so a split is
/// timed right.
struct EditCosts {
    OpCosts costs;
    MemoryInputs memory;
    Units units;
};

EditCosts editCosts(const EditOptions& options, const EditInput& input) {
    const ProjectOptions& in = options.project;
    const CostSetup unit = unitEditorCostSetup(input.schedule);
    EditCosts out{unit.costs, unit.memory, Units{}};
    const bool projectGiven =
        !in.costsProject.empty() ||
        (!in.projectPath.empty() && input.base.file.empty() && options.editsPath.empty());
    if (projectGiven && !options.unit) {
        ProjectOptions costsOptions = in;
        if (!in.costsProject.empty()) costsOptions.projectPath = in.costsProject;
        const CostSetup setup = editorCostSetup(loadProject(costsOptions), input.schedule);
        out.costs = setup.costs;
        out.memory = setup.memory;
        out.units.physical = !setup.unitless;
    }
    return out;
}

} // namespace

void addEditCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand(
        "edit", "Edit a schedule's order by hand (move, shift, swap, split, merge, pipe, add / drop a sync), "
                "print what each edit changes or breaks, and write the result (.csv for torch, .json)");
    command->footer(kEditHelp);
    auto options = std::make_shared<EditOptions>();
    options->project.scheduleRequired = false;
    options->project.addTo(*command);
    command->add_option("--edits", options->editsPath,
                        "An edit list file (JSON: base schedule and edits, docs/editing.md); its edits "
                        "come before those of the flags");
    command->add_option("--move", options->moves, "OP:after:OP, OP:before:OP or OP:to:INDEX (repeatable)");
    command->add_option("--shift", options->shifts, "OP:+N or OP:-N (repeatable)");
    command->add_option("--swap", options->swaps, "OP:OP, two neighbours (repeatable)");
    command->add_option("--split", options->splits, "OP or all (repeatable)");
    command->add_option("--merge", options->merges, "OP or all (repeatable)");
    command->add_option("-e,--edit", options->texts, "An edit in its text form (repeatable)");
    command->add_option("-o,--output", options->output, "The edited schedule: .csv (torch) or .json");
    command->add_option("--save-edits", options->saveEdits,
                        "Write the base and every edit applied as an edit list file, to replay with --edits");
    command->add_flag("--fill-bubbles", options->fillBubbles,
                      "After the edits, slide W ops into the idle time of their device (each move listed)");
    command->add_flag(
        "--compact", options->compact,
        "After the edits (and --fill-bubbles), pull compute ops (F, B, W) into the idle time of "
        "their device (each move listed; memory may rise)");
    command->add_flag("--repair", options->repair,
                      "An edit that breaks the schedule does not stop the command: after the edits, the "
                      "order is repaired by moves, each listed with its reason (docs/editing.md)");
    command->add_flag("--unit", options->unit,
                      "Time at unit costs (F = B = W = 1, no transfer time) even with a project");
    command->callback([&result, options, command] {
        EditInput input = loadEditInput(*command, *options);
        const EditCosts setup = editCosts(*options, input);
        const std::string baseName = input.schedule.name;
        ScheduleEditor editor(std::move(input.schedule), setup.costs);
        const MemoryInputs& memory = setup.memory;
        const Units& units = setup.units;
        const EditBase& base = input.base;
        const auto& edits = input.edits;
        auto figures = [&] {
            Figures f{editor.makespan(), editor.bubbleRatio(), 0};
            const MemoryReport report =
                computeMemory(editor.schedule(), editor.timeline(), memory, MemoryDetail::PeaksOnly);
            for (const DeviceMemory& device : report.devices) f.peak = std::max(f.peak, device.peakBytes);
            return f;
        };
        const Figures first = figures();
        Figures last = first;
        std::cout << baseName << ": makespan " << units.text(Quantity::Time, first.makespan)
                  << (units.physical ? "" : " units") << ", bubble "
                  << units.text(Quantity::Share, first.bubble) << ", peak memory "
                  << units.text(Quantity::Memory, first.peak) << (units.physical ? "" : " activations")
                  << "\n";
        std::vector<std::string> applied;
        for (std::size_t i = 0; i < edits.size(); ++i) {
            const std::string text = formatEdit(edits[i].second, editor.schedule());
            EditOutcome outcome;
            try {
                outcome = editor.apply(edits[i].second);
            } catch (const ValidationError& e) {
                throw ValidationError(e.id(), e.field(),
                                      "edit " + std::to_string(i + 1) + " (" + text + "): " + e.message());
            }
            applied.push_back(text);
            if (!editor.runs() && options->repair) {
                // Figures need an order that runs: the repair below restores one.
                std::cout << "  " << i + 1 << ". " << text
                          << ": breaks the schedule: " << editor.broken().message << "  [re-timed "
                          << outcome.retimed << " op(s)]\n";
                continue;
            }
            if (!editor.runs())
                throw ValidationError("edit.broken", "edits[" + std::to_string(i) + "]",
                                      "edit " + std::to_string(i + 1) + " (" + text +
                                          ") breaks the schedule: " + editor.broken().message);
            const Figures now = figures();
            std::cout << "  " << i + 1 << ". " << text << ": " << units.changes(last, now) << "  [re-timed "
                      << outcome.retimed << " op(s)]\n";
            last = now;
        }
        auto helper = [&](const char* title, std::vector<Edit> (*run)(ScheduleEditor&)) {
            const std::vector<Edit> moves = run(editor);
            std::cout << title << ": " << moves.size() << " move(s)\n";
            for (const Edit& move : moves) {
                applied.push_back(formatEdit(move, editor.schedule()));
                std::cout << "  " << applied.size() << ". " << applied.back() << "\n";
            }
            last = figures();
        };
        if (options->repair) {
            RepairSearch search;
            const std::vector<RepairMove> moves = repair(editor, &search);
            std::cout << "repair: " << describeRepair(moves.size(), search) << "\n";
            for (const RepairMove& move : moves) {
                applied.push_back(formatEdit(move.edit, editor.schedule()));
                std::cout << "  " << applied.size() << ". " << applied.back() << "  (" << move.reason
                          << ")\n";
            }
            last = figures();
        }
        if (options->fillBubbles) helper("fill bubbles", &fillBubbles);
        if (options->compact) helper("compact", &compact);
        std::cout << baseName << " after " << applied.size() << " edit(s): " << units.changes(first, last)
                  << "\n";
        if (!options->saveEdits.empty()) {
            writeFileAtomically(options->saveEdits, editListToJson(base, applied));
            std::cout << "wrote " << options->saveEdits << ": " << applied.size() << " edit(s)\n";
        }
        if (!options->output.empty()) {
            Schedule edited = editor.schedule();
            edited.name = baseName + "-edited";
            writeScheduleFile(edited, options->output);
            std::cout << "wrote " << options->output << ": " << edited.name << ", " << edited.opCount()
                      << " ops\n";
        }
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
