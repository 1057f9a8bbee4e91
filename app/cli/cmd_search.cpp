// `stagecraft-cli search PROJECT [--global-batch N | --batch-per-gpu A..B] [--schedules a,b,...]
// [--max-gpus N] [--threads N] [-o results.{csv,json,svg,tex,tikz,pdf,png}]...`: which (pp, dp,
// tp, micro-batches, chunks, schedule, ZeRO stage) fits the memory and trains fastest. A shell over
// core/search: progress on stderr, the best configuration per schedule and batch point on stdout.
#include "chart_file.h"
#include "commands.h"
#include "error.h"
#include "file_io.h"
#include "layout/chart_format.h"
#include "search/search.h"
#include "search/search_charts.h"
#include "search/search_report.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <unistd.h>

namespace stagecraft::cli {

namespace {

struct SearchCliOptions {
    ProjectOptions project;
    int globalBatch = 0;
    std::string batchPerGpu;
    std::string schedules;
    int maxGpus = 0;
    int threads = 0;
    std::vector<int> microBatchSizes;
    std::vector<int> zero;
    std::vector<int> tp;
    std::vector<std::string> recompute;
    int maxChunks = 16;
    std::vector<std::string> outputs;
    std::string chart = "both";
    std::string palette = "paper";
    double width = 340;
    double dpi = 200;
    bool quiet = false;
};

std::string extensionOf(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

void checkOutput(const std::string& path) {
    const std::string ext = extensionOf(path);
    if (ext == ".csv" || ext == ".json" || chartFormatOf(path)) return;
    throw ValidationError("cli.format", "--output",
                          "--output '" + path +
                              "': search writes .csv, .json or a chart: " + chartFormatList());
}

void writeOutput(const SearchResult& result, const SearchCliOptions& options, const std::string& path) {
    const std::string ext = extensionOf(path);
    if (ext == ".csv") return writeFileAtomically(path, searchToCsv(result));
    if (ext == ".json") return writeFileAtomically(path, searchToJson(result));
    writeSceneFile(
        buildSearchChart(result, searchChartFromName(options.chart), options.palette, options.width), path,
        options.dpi);
}

} // namespace

void addSearchCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand(
        "search", "Search pp, dp, tp, micro-batches, chunks, schedule and ZeRO stage for the fastest "
                  "configurations that fit the memory; best per schedule and Pareto fronts");
    auto options = std::make_shared<SearchCliOptions>();
    options->project.scheduleRequired = false;
    options->project.acceptsScheduleFile = false;
    command->add_option("project", options->project.projectPath,
                        "Project file (*.stagecraft.json); the built-in default project if absent");
    command
        ->add_option("--set", options->project.sets, "Override a project field first: --set model.layers=48")
        ->type_name("PATH=VALUE");
    auto* global = command
                       ->add_option("--global-batch", options->globalBatch,
                                    "One global batch (samples per iteration over all replicas)")
                       ->check(positiveNumber());
    command
        ->add_option("--batch-per-gpu", options->batchPerGpu,
                     "Batch sizes per GPU: A, or A..B for the powers of two from A to B (e.g. 0.5..16); "
                     "default: the project's global batch")
        ->excludes(global);
    command->add_option("--schedules", options->schedules, "Comma list of schedules (default: all)");
    command->add_option("--max-gpus", options->maxGpus, "GPUs to use (default: the whole cluster)")
        ->check(positiveNumber());
    command->add_option("--threads", options->threads, "Worker threads (default: every hardware thread)")
        ->check(positiveNumber());
    command
        ->add_option("--micro-batch-sizes", options->microBatchSizes,
                     "Micro-batch sizes to try (default: the project's)")
        ->delimiter(',');
    command->add_option("--zero", options->zero, "ZeRO stages to try (default: 0,1,2,3)")->delimiter(',');
    command
        ->add_option("--tp", options->tp,
                     "Tensor-parallel degrees (default: powers of two up to the GPUs of a node)")
        ->delimiter(',');
    command
        ->add_option("--recompute", options->recompute,
                     "Activation recomputation to try: none, selective, full (default: the project's)")
        ->delimiter(',');
    command->add_option("--max-chunks", options->maxChunks, "Most chunks per device for looped schedules")
        ->check(CLI::Range(1, 64));
    command->add_option("-o,--output", options->outputs,
                        "Write results: .csv, .json (every fitting configuration, best, fronts) or the "
                        "chart .svg, .tex, .tikz, .pdf, .png (repeatable)");
    command->add_option("--chart", options->chart, "Which chart: efficiency, memory or both")
        ->check(CLI::IsMember({"efficiency", "memory", "both"}));
    command->add_option("--palette", options->palette, "Chart style: paper, slides, colorblind, greyscale");
    command->add_option("--width", options->width, "Width of one plot, pt")->check(CLI::Range(160.0, 2000.0));
    command->add_option("--dpi", options->dpi, "PNG resolution")->check(CLI::Range(36.0, 1200.0));
    command->add_flag("-q,--quiet", options->quiet, "No progress on stderr");
    command->callback([&result, options] {
        for (const std::string& path : options->outputs) checkOutput(path);
        const Project project = loadProject(options->project);
        SearchSpace space;
        space.schedules = splitNames(options->schedules);
        space.globalBatch = options->globalBatch;
        if (!options->batchPerGpu.empty())
            space.batchPerGpu = parseBatchRange(options->batchPerGpu, "--batch-per-gpu");
        space.gpus = options->maxGpus;
        space.microBatchSizes = options->microBatchSizes;
        space.zeroStages = options->zero;
        space.tpDegrees = options->tp;
        space.maxChunks = options->maxChunks;
        for (const std::string& r : options->recompute)
            space.recomputes.push_back(parseRecompute(r, "--recompute"));
        const SearchPlan plan = planSearch(project, space);

        SearchOptions run;
        run.threads = options->threads;
        const bool tty = isatty(STDERR_FILENO) != 0;
        if (!options->quiet)
            run.progress = [tty](const SearchProgress& p) {
                if (tty || p.done == p.total)
                    std::fprintf(stderr, "%ssearch: %zu / %zu configurations%s", tty ? "\r" : "", p.done,
                                 p.total, p.done == p.total ? "\n" : "");
                return true;
            };
        const SearchResult found = runSearch(project, plan, run);
        std::cout << searchSummaryText(found);
        for (const std::string& path : options->outputs) writeOutput(found, *options, path);
        result.status = found.fitting > 0 ? kExitOk : kExitFailure;
        if (found.fitting == 0) std::cerr << "stagecraft-cli: no configuration fits the memory limit\n";
    });
}

} // namespace stagecraft::cli
