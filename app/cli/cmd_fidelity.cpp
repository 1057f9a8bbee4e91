// `stagecraft-cli fidelity (--fit RUN [-o FIT.json] | --costs FIT.json) [--check RUN]... [--predict
// a,b] [--json]`: fits the torch runtime model to one measured torch.distributed.pipelining run (a
// comma list of its per-rank profiler traces) or reads a fit written before, reports the fit and
// its residual on that run, predicts every --check run (another schedule of the same model: its
// own executed programs timed with the fitted costs) against its measurement, and registered
// schedules as torch would run them. Core's eval/runtime_fit does the work.
#include "chart_file.h"
#include "commands.h"
#include "error.h"
#include "eval/runtime_fit.h"
#include "eval/runtime_fit_chart.h"
#include "file_io.h"
#include "number_text.h"
#include "project/runtime_fit_file.h"
#include "report_format.h"

#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

namespace stagecraft::cli {

namespace {

struct FidelityOptions {
    std::string fit;
    std::string costs;        ///< a fit file instead of --fit
    std::string output;       ///< where to write the fit
    std::string chart;        ///< the measured run above its prediction
    std::string predictChart; ///< the --predict schedules stacked
    ChartFileOptions chartFile;
    std::vector<std::string> checks;
    std::string predict; ///< registry names, comma-separated
    ScheduleParams params{0, 0, 0};
    double inputShare = 0.5;
    double processors = kFindProcessors; ///< the ranks' shared processors, where known
    bool json = false;
};

/// `value` x 100 with one decimal and its sign; what rounds to zero is "+0.0" (never "-0.0").
std::string signedTenths(double value) {
    double v = std::round(1000 * value) / 10;
    if (v == 0) v = 0; // -0.0 prints as "-0.0"
    return (v >= 0 ? "+" : "") + fixed(v, 1);
}
std::string signedPct(double ratio) {
    return signedTenths(ratio) + "%";
}
std::string points(double delta) {
    return signedTenths(delta);
}

/// A check: the run's own programs timed with the fitted costs (mapped onto its stage count).
struct Check {
    std::string run;
    std::vector<std::string> notes;
    FidelityReport report;
    TransferContention contention; ///< the checked run's stalled posts and held payloads
};

/// The fit the command predicts with: made now from a run (with its residual) or read from a file.
struct Fitted {
    RuntimeFitRecord record;
    std::string header;
    std::optional<FidelityReport> residual;
    /// The fitted run's stalled posts and held payloads, counted when fitted now (a fit file keeps
    /// the notes).
    std::optional<TransferContention> contention;
};

Fitted fitNow(const std::string& run, double processors) {
    const RuntimeFit fit = fitRuntime(readTorchRun(runFiles(run)), run, processors);
    Fitted f;
    f.record = recordOf(fit, run);
    f.residual = fit.residual;
    f.contention = TransferContention{fit.postStalls, fit.heldPayloads};
    f.header = "fitted " + f.record.model + " on " + run + ": " + std::to_string(fit.programs.ranks) +
               " ranks, " + std::to_string(fit.iterations) + " iterations, " +
               std::to_string(fit.computeSamples) + " compute ranges, " +
               std::to_string(fit.transferSamples) + " waited-for transfers\n";
    return f;
}

Fitted readFit(const std::string& path) {
    Fitted f;
    f.record = parseRuntimeFitJson(readTextFile(path), path);
    f.header = f.record.model + " costs from " + path + " (fitted on " + f.record.source + ": " +
               std::to_string(f.record.ranks) + " ranks, " + std::to_string(f.record.iterations) +
               " iterations; its residual: makespan " + signedPct(f.record.residualMakespanError) +
               ", bubble " + points(f.record.residualBubbleError) + " points)\n";
    return f;
}

Check check(const Fitted& fit, const std::string& list) {
    Check c;
    c.run = list;
    const std::vector<RankTrace> ranks = readTorchRun(runFiles(list));
    c.report = predictRun(fit.record.costs, ranks, list, &c.notes);
    c.contention = measureContention(ranks);
    return c;
}

std::vector<std::string> row(const std::string& name, const FidelityReport& r) {
    // The measured median's own 95 % interval: an error inside it is inside the run's noise.
    const std::string noise = r.measuredNoise > 0 ? "\u00b1" + fixed(100 * r.measuredNoise, 0) + "%" : "-";
    return {name,
            millisecondsText(r.measured.makespan),
            noise,
            millisecondsText(r.predicted.makespan),
            signedPct(r.makespanError),
            fixed(100 * r.measured.bubble, 1),
            fixed(100 * r.predicted.bubble, 1),
            points(r.bubbleError),
            fixed(100 * r.opMape, 1) + "%",
            millisecondsText(r.startMae),
            fixed(r.opSpeed, 3),
            r.atRunSpeed ? signedPct(r.makespanErrorAtRunSpeed) + ", " + points(r.bubbleErrorAtRunSpeed)
                         : "-"};
}

/// How far the run's iterations and the replay's draws spread apart, where both are known.
std::string spreadLine(const FidelityReport& r) {
    const RunSummary &m = r.measured, &p = r.predicted;
    if (m.makespanP90 <= 0 || p.makespanP90 <= 0) return {};
    return "makespans from the 10th to the 90th percentile: the run's iterations " +
           millisecondsText(m.makespanP10) + " to " + millisecondsText(m.makespanP90) +
           " ms, the replay's draws " + millisecondsText(p.makespanP10) + " to " +
           millisecondsText(p.makespanP90) + " ms\n";
}

/// What the run's and the replay's critical paths are made of (medians over iterations and draws).
std::string pathLine(const FidelityReport& r) {
    return criticalPathText(r.measured.path, r.predicted.path) + "\n";
}

std::string rankTable(const FidelityReport& r) {
    std::vector<std::vector<std::string>> rows{
        {"rank", "compute", "input wait", "comm", "bookkeeping", "gaps", "busy error"}};
    for (std::size_t d = 0; d < r.measured.ranks.size() && d < r.predicted.ranks.size(); ++d) {
        const RankTime& m = r.measured.ranks[d];
        const RankTime& p = r.predicted.ranks[d];
        auto pair = [](double a, double b) { return millisecondsText(a) + " / " + millisecondsText(b); };
        rows.push_back({std::to_string(d), pair(m.compute, p.compute), pair(m.inputWait, p.inputWait),
                        pair(m.comm, p.comm), pair(m.bookkeeping, p.bookkeeping), pair(m.gaps, p.gaps),
                        m.compute > 0 ? signedPct((p.compute - m.compute) / m.compute) : "-"});
    }
    const RankTime& c = r.criticalDelta;
    return textTable(rows) + "rank " + std::to_string(r.criticalRank) +
           " ends last; its time predicted - measured (ms): compute " + millisecondsText(c.compute) +
           ", input wait " + millisecondsText(c.inputWait) + ", comm " + millisecondsText(c.comm) +
           ", bookkeeping " + millisecondsText(c.bookkeeping) + ", gaps " + millisecondsText(c.gaps) +
           "; the makespan past this rank's median time " + millisecondsText(r.criticalPastRank) +
           " (each iteration ends with its slowest rank); in all " +
           millisecondsText(r.predicted.makespan - r.measured.makespan) + ", the makespan error\n" +
           spreadLine(r) + pathLine(r);
}

std::string predictionTable(const std::vector<SchedulePrediction>& predictions) {
    if (predictions.empty()) return {};
    std::vector<std::vector<std::string>> rows{
        {"schedule", "torch runtime", "makespan ms", "bubble %", "notes"}};
    for (const SchedulePrediction& p : predictions) {
        std::string notes;
        for (const std::string& n : p.notes) notes += (notes.empty() ? "" : "; ") + n;
        if (!p.refusal.empty())
            rows.push_back({p.schedule, "-", "-", "-", "refused: " + p.refusal});
        else
            rows.push_back({p.schedule, p.runtime, millisecondsText(p.summary.makespan),
                            fixed(100 * p.summary.bubble, 1), notes});
    }
    return "predicted under torch's runtime with the fitted costs:\n" + textTable(rows, LastColumn::Text);
}

/// "1.66 an iteration, 4.2 ms each" of `count` things an iteration over `us` µs in all.
std::string perIteration(std::size_t count, std::size_t iterations, double us) {
    if (iterations == 0) return "-";
    std::string out = fixed(double(count) / double(iterations), 2) + " an iteration";
    if (count > 0) out += ", " + millisecondsText(us / double(count)) + " ms each";
    return out;
}

/// One line: a run's stalled posts and held payloads an iteration, where gloo's I/O threads
/// delayed it (eval/post_stalls.h, eval/held_payloads.h).
std::string contentionLine(const std::string& who, const TransferContention& c) {
    const HeldPayloadCount& h = c.heldPayloads;
    return who + ": posts stalled " +
           perIteration(c.postStalls.stalls(), c.postStalls.iterations, c.postStalls.stalledUs) +
           "; payloads held " + perIteration(h.totalHeld(), h.iterations, h.totalHeldUs()) + "\n";
}

std::string text(const Fitted& fit, const std::vector<Check>& checks) {
    const RuntimeCosts& costs = fit.record.costs;
    std::string out = fit.header;
    std::vector<std::vector<std::string>> stages{{"stage", "F ms", "B ms", "I ms", "W ms"}};
    auto cell = [](double v) { return v < 0 ? std::string("-") : millisecondsText(v); };
    for (std::size_t s = 0; s < costs.stages.size(); ++s) {
        const StageCompute& c = costs.stages[s];
        stages.push_back({std::to_string(s), cell(c.f), cell(c.b), cell(c.i), cell(c.w)});
    }
    out += textTable(stages);
    const ActionCosts& a = costs.actions;
    out += "per action (ms): gap " + millisecondsText(a.gap) + ", post recv " + millisecondsText(a.postRecv) +
           ", post send " + millisecondsText(a.postSend) + ", wait send " + millisecondsText(a.waitSend) +
           ", reduce grad " + millisecondsText(a.reduceGrad) + ", unshard " + millisecondsText(a.unshard) +
           ", reshard " + millisecondsText(a.reshard) + "; transfer " +
           millisecondsText(costs.transfer.latency) + "\n";
    if (costs.cores > 0) {
        std::ostringstream shared;
        shared << "shared processors: " << costs.cores
               << " (the ranks slow each other down while more compute at once)\n";
        out += shared.str();
    }
    for (const std::string& n : fit.record.notes) out += "note: " + n + "\n";
    std::vector<std::vector<std::string>> rows{{"run", "makespan ms", "run's own", "predicted", "error",
                                                "bubble %", "predicted", "points", "op MAPE", "start MAE ms",
                                                "op speed", "at its speed"}};
    if (fit.residual) rows.push_back(row("fit (residual)", *fit.residual));
    for (std::size_t i = 0; i < checks.size(); ++i)
        rows.push_back(row("check " + std::to_string(i + 1), checks[i].report));
    if (rows.size() > 1) out += textTable(rows);
    if (!checks.empty())
        out +=
            "op speed: the run's compute time over the prediction's (1.1: its ops ran 10 % longer); at its "
            "speed: the error with every compute cost times that, what the schedule's timing leaves "
            "(a diagnosis: it reads the run's own op times)\n";
    if (fit.residual) out += "fit run, per rank, measured / predicted ms:\n" + rankTable(*fit.residual);
    for (std::size_t i = 0; i < checks.size(); ++i) {
        out += "check " + std::to_string(i + 1) + ": " + checks[i].run + "\n";
        for (const std::string& n : checks[i].notes) out += "note: " + n + "\n";
        out += contentionLine("this run", checks[i].contention);
        if (fit.contention) out += contentionLine("the fitted run", *fit.contention);
        out += rankTable(checks[i].report);
    }
    return out;
}

nlohmann::ordered_json reportJson(const FidelityReport& r) {
    using Json = nlohmann::ordered_json;
    auto ranks = [](const RunSummary& s) {
        Json out = Json::array();
        for (const RankTime& t : s.ranks)
            out.push_back({{"compute_us", t.compute},
                           {"input_wait_us", t.inputWait},
                           {"comm_us", t.comm},
                           {"bookkeeping_us", t.bookkeeping},
                           {"gaps_us", t.gaps}});
        return out;
    };
    return Json{
        {"measured_makespan_us", r.measured.makespan},
        {"predicted_makespan_us", r.predicted.makespan},
        {"makespan_error", r.makespanError},
        {"measured_makespan_interval_us", Json::array({r.measured.makespanLow, r.measured.makespanHigh})},
        {"measured_makespan_p10_p90_us", Json::array({r.measured.makespanP10, r.measured.makespanP90})},
        {"predicted_makespan_p10_p90_us", Json::array({r.predicted.makespanP10, r.predicted.makespanP90})},
        {"measured_noise", r.measuredNoise},
        {"measured_bubble", r.measured.bubble},
        {"predicted_bubble", r.predicted.bubble},
        {"bubble_error", r.bubbleError},
        {"busy_error", r.busyError},
        {"op_mape", r.opMape},
        {"op_speed", r.opSpeed},
        {"start_mae_us", r.startMae},
        {"matched_ops", r.matchedOps},
        {"at_run_speed", r.atRunSpeed ? Json{{"makespan_error", r.makespanErrorAtRunSpeed},
                                             {"bubble_error", r.bubbleErrorAtRunSpeed}}
                                      : Json(nullptr)},
        {"measured_ranks", ranks(r.measured)},
        {"predicted_ranks", ranks(r.predicted)},
        {"measured_critical_path", actionPathJson(r.measured.path)},
        {"predicted_critical_path", actionPathJson(r.predicted.path)},
        {"critical_rank", r.criticalRank},
        {"critical_delta_us", residualPartsJson(residualPartsOf(r))}};
}

nlohmann::ordered_json postStallsJson(const PostStallCount& c) {
    return {{"iterations", c.iterations},           {"near_posts", c.nearPosts},
            {"near_stalls", c.nearStalls},          {"other_posts", c.otherPosts},
            {"other_stalls", c.otherStalls},        {"near_window_us", c.window},
            {"stalled_past_median_us", c.stalledUs}};
}

nlohmann::ordered_json heldPayloadsJson(const HeldPayloadCount& c) {
    nlohmann::ordered_json bySender = nlohmann::ordered_json::object();
    for (const SenderState state : {SenderState::Blocked, SenderState::Computing, SenderState::Other}) {
        const auto i = std::size_t(state);
        bySender[senderStateKey(state)] = {
            {"transfers", c.transfers[i]}, {"held", c.held[i]}, {"held_past_transfer_us", c.heldUs[i]}};
    }
    return {{"iterations", c.iterations},
            {"transfer_us", c.transferUs},
            {"held_over_us", kHeldUs},
            {"by_sender", bySender}};
}

std::string json(const Fitted& fit, const std::vector<Check>& checks,
                 const std::vector<SchedulePrediction>& predictions) {
    using Json = nlohmann::ordered_json;
    const RuntimeCosts& costs = fit.record.costs;
    Json stages = Json::array();
    for (const StageCompute& c : costs.stages)
        stages.push_back({{"f_us", c.f}, {"b_us", c.b}, {"i_us", c.i}, {"w_us", c.w}});
    Json out{{"model", fit.record.model},
             {"fit_run", fit.record.source},
             {"iterations", fit.record.iterations},
             {"stages", stages},
             {"actions_us", actionCostsJson(costs.actions)},
             {"transfer_us", costs.transfer.latency},
             {"shared_processors", costs.cores},
             {"notes", fit.record.notes}};
    out["post_stalls"] = fit.contention ? postStallsJson(fit.contention->postStalls) : Json(nullptr);
    out["held_payloads"] = fit.contention ? heldPayloadsJson(fit.contention->heldPayloads) : Json(nullptr);
    if (fit.residual)
        out["residual"] = reportJson(*fit.residual);
    else
        out["residual"] = Json{{"makespan_error", fit.record.residualMakespanError},
                               {"bubble_error", fit.record.residualBubbleError}};
    Json list = Json::array();
    for (const Check& c : checks) {
        Json item = reportJson(c.report);
        item["run"] = c.run;
        item["notes"] = c.notes;
        item["post_stalls"] = postStallsJson(c.contention.postStalls);
        item["held_payloads"] = heldPayloadsJson(c.contention.heldPayloads);
        list.push_back(item);
    }
    out["checks"] = list;
    Json predicted = Json::array();
    for (const SchedulePrediction& p : predictions)
        predicted.push_back(p.refusal.empty() ? Json{{"schedule", p.schedule},
                                                     {"runtime", p.runtime},
                                                     {"makespan_us", p.summary.makespan},
                                                     {"bubble", p.summary.bubble},
                                                     {"notes", p.notes}}
                                              : Json{{"schedule", p.schedule}, {"refused", p.refusal}});
    out["predictions"] = predicted;
    return out.dump(2) + '\n';
}

} // namespace

void addFidelityCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand(
        "fidelity",
        "Fit the torch runtime model to one measured torch.distributed.pipelining run and check its "
        "predictions against other runs (per-rank profiler traces, comma-separated per run)");
    auto options = std::make_shared<FidelityOptions>();
    auto* fitOption =
        command->add_option("--fit", options->fit,
                            "The run to fit: its per-rank torch profiler traces, comma-separated, or their "
                            "common prefix (RUN for RUN_rank0.json ..., or for every repeat "
                            "RUN_rep0_rank0.json ...)");
    auto* costsOption =
        command->add_option("--costs", options->costs, "A fit written before with -o, instead of --fit");
    fitOption->excludes(costsOption);
    command->add_option("-o,--output", options->output, "Write the fit to this file (*.fit.json)")
        ->needs(fitOption);
    command->add_option("--check", options->checks,
                        "A run to predict (another schedule of the same model), comma-separated; repeatable");
    command->add_option("--predict", options->predict,
                        "Registered schedules to predict under torch's runtime with the fitted costs, "
                        "comma-separated (e.g. 1f1b,interleaved,zb-v)");
    command
        ->add_option("--pp", options->params.pp, "pp of the predicted schedules (default: the fitted run's)")
        ->check(CLI::Range(1, 4096));
    command
        ->add_option("--microbatches", options->params.microbatches,
                     "micro-batches of the predicted schedules (default: the fitted run's)")
        ->check(CLI::Range(1, 1048576));
    command
        ->add_option(
            "--chunks", options->params.chunks,
            "chunks per device of interleaved and breadth-first predictions (default: the fitted run's)")
        ->check(CLI::Range(1, 64));
    command
        ->add_option("--input-share", options->inputShare,
                     "share of a whole backward that is its input-gradient part (I), for split schedules "
                     "predicted from a run that did not split it (default 0.5)")
        ->check(CLI::Range(0.0, 1.0));
    command
        ->add_option(
            "--processors", options->processors,
            "how many processors the fitted run's ranks shared, where known: 0 when each rank had its "
            "own (pinned one per core, or one GPU each), 2 for four ranks on two cores (default: "
            "the count whose replay comes closest to the run)")
        ->check(CLI::Range(0.0, 4096.0))
        ->needs(fitOption);
    command->add_option("--chart", options->chart,
                        "Draw the measured run above its prediction on one time axis (the first --check run, "
                        "else the fitted run): .svg, .pdf, .png, .tex, .tikz");
    command
        ->add_option("--predict-chart", options->predictChart,
                     "Draw the --predict schedules as torch would run them, stacked on one time axis: .svg, "
                     ".pdf, .png, .tex, .tikz")
        ->needs("--predict");
    addChartFileOptions(*command, options->chartFile);
    command->add_flag("--json", options->json, "Machine-readable JSON");
    command->callback([&result, options] {
        if (options->fit.empty() && options->costs.empty())
            throw ValidationError("cli.trace", "--fit",
                                  "fidelity needs --fit RUN (the traces to fit) or --costs FILE");
        if (!options->predictChart.empty()) checkChartFile(options->predictChart, "--predict-chart");
        if (!options->chart.empty()) {
            checkChartFile(options->chart, "--chart");
            if (options->checks.empty() && options->fit.empty())
                throw ValidationError("cli.trace", "--chart",
                                      "--chart draws a measured run: give --check RUN (or --fit RUN)");
        }
        const Fitted fit =
            options->fit.empty() ? readFit(options->costs) : fitNow(options->fit, options->processors);
        if (!options->output.empty()) writeFileAtomically(options->output, runtimeFitToJson(fit.record));
        if (!options->chart.empty()) {
            const std::string& drawn = options->checks.empty() ? options->fit : options->checks.front();
            const RunTimelines run = runTimelines(fit.record.costs, readTorchRun(runFiles(drawn)), drawn);
            // The run's name: its first file's, less torch's "_rank0".
            std::string name = runFiles(drawn).front().stem().string();
            if (const auto at = name.rfind("_rank"); at != std::string::npos && at > 0) name.resize(at);
            writeSceneFile(buildRunComparisonScene(run, name, chartSettings(options->chartFile),
                                                   options->chartFile.widthPt),
                           options->chartFile, options->chart);
        }
        std::vector<Check> checks;
        for (const std::string& list : options->checks) checks.push_back(check(fit, list));
        ScheduleParams params = options->params;
        const RuntimeCosts& costs = fit.record.costs;
        if (params.pp == 0) params.pp = fit.record.ranks;
        if (params.microbatches == 0) params.microbatches = fit.record.microbatches;
        if (params.chunks == 0)
            params.chunks = std::max(1, int(costs.stages.size()) / std::max(1, fit.record.ranks));
        const std::vector<SchedulePrediction> predictions =
            predictTorchSchedules(costs, splitNames(options->predict), params, options->inputShare);
        if (!options->predictChart.empty())
            writeSceneFile(buildPredictionsScene(predictions, chartSettings(options->chartFile),
                                                 options->chartFile.widthPt),
                           options->chartFile, options->predictChart);
        std::cout << (options->json
                          ? json(fit, checks, predictions)
                          : text(fit, checks) + predictionTable(predictions) +
                                (options->output.empty() ? "" : "wrote " + options->output + "\n") +
                                (options->chart.empty() ? "" : "wrote " + options->chart + "\n") +
                                (options->predictChart.empty() ? ""
                                                               : "wrote " + options->predictChart + "\n"));
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
