// `stagecraft-cli calibrate [PROJECT or SCHEDULE FILE] --trace FILE... [-s NAME] -o OUT.stagecraft.json`:
// fits manual costs (per range of the model's layers, transfer time) to a measured trace with
// core's calibrateFromTrace, writes the calibrated project where -o says (never over its input
// unless -o names it), and prints the prediction's error before and after and the rule used for
// what the trace did not measure.
#include "commands.h"
#include "error.h"
#include "eval/calibration.h"
#include "eval/evaluation_input.h"
#include "number_text.h"
#include "project/project_json.h"
#include "project/runtime_fit_file.h"
#include "report_format.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace stagecraft::cli {

namespace {

struct CalibrateOptions {
    ProjectOptions project;
    std::string output;
    double inputShare = kDefaultInputShare;
    bool listScheduler = false;
    bool json = false;
};

std::string pct(double ratio) {
    return (ratio >= 0 ? "+" : "") + fixed(100 * ratio, 2) + "%";
}

/// What the trace could not measure and how it was filled in, for both reports.
std::string backwardText(const CostFit& fit) {
    return fit.rule.empty() ? "B and W as measured (the trace split the backward)"
                            : fit.rule + " (--input-share)";
}

std::string reportText(const CalibrationReport& r, const std::string& output) {
    std::vector<std::vector<std::string>> rows{
        {"", "predicted makespan", "measured makespan", "predicted vs measured", "mean |op duration error|"},
        {"before", durationText(r.before.makespanPredicted), durationText(r.before.makespanMeasured),
         pct(r.before.makespanError), durationText(r.before.meanAbsDurationError)},
        {r.runtime ? "after, list scheduler" : "after", durationText(r.listAfter.makespanPredicted),
         durationText(r.listAfter.makespanMeasured), pct(r.listAfter.makespanError),
         durationText(r.listAfter.meanAbsDurationError)}};
    if (r.runtime)
        rows.push_back({"after, runtime model", durationText(r.after.makespanPredicted),
                        durationText(r.after.makespanMeasured), pct(r.after.makespanError),
                        durationText(r.after.meanAbsDurationError)});
    std::string out =
        "calibrated " + r.schedule + " from " + std::to_string(r.fit.samples) + " measured ops\n";
    out += textTable(rows);
    std::vector<std::vector<std::string>> layers{{"stage", "layers", "F", "B", "W"}};
    for (std::size_t s = 0; s < r.project.costs.layers.size(); ++s) {
        const LayerRangeCost& l = r.project.costs.layers[s];
        layers.push_back({std::to_string(s), std::to_string(l.first) + "-" + std::to_string(l.last),
                          durationText(l.f), durationText(l.b), durationText(l.w)});
    }
    out += textTable(layers);
    out += "backward: " + backwardText(r.fit) + "\n";
    if (!r.fit.sliceRule.empty()) out += "slices: " + r.fit.sliceRule + "\n";
    out += "comm " + durationText(r.project.costs.comm) +
           " per cross-device dependency, fitted to the measured op starts (" +
           std::to_string(r.fit.commSamples) + " waited-for transfers alone gave " +
           durationText(r.commFromWaits) + ")\n";
    if (r.runtime) {
        out += describeRuntimeFit(*r.runtime) + "\n";
        for (const std::string& note : r.runtime->notes) out += "  " + note + "\n";
        out += "every schedule is predicted as torch runs it on the measured machine (the project's "
               "runtime_fit; `stagecraft-cli fidelity` shows the fit)\n";
    } else if (r.project.costs.timing == Timing::StagecraftRun) {
        out += "every schedule is timed as stagecraft-run executes its programs (costs.timing = "
               "stagecraft-run, the timing the run predicted itself with)\n";
    } else {
        if (!r.runtimeRefusal.empty()) out += "no runtime model: " + r.runtimeRefusal + "\n";
        out += "every schedule whose stages split model.layers = " + std::to_string(r.project.model.layers) +
               " is priced from these layer costs\n";
    }
    out += "wrote " + output + '\n';
    return out;
}

std::string reportJson(const CalibrationReport& r, const std::string& output) {
    using Json = nlohmann::ordered_json;
    auto side = [](const OverlayReport& o) {
        return Json{{"predicted_us", o.makespanPredicted},
                    {"measured_us", o.makespanMeasured},
                    {"makespan_error", o.makespanError},
                    {"mean_abs_duration_error_us", o.meanAbsDurationError}};
    };
    Json layers = Json::array();
    for (std::size_t s = 0; s < r.project.costs.layers.size(); ++s) {
        const LayerRangeCost& l = r.project.costs.layers[s];
        layers.push_back({{"stage", s},
                          {"first", l.first},
                          {"last", l.last},
                          {"f_us", l.f},
                          {"b_us", l.b},
                          {"w_us", l.w}});
    }
    Json backward{{"split_measured", r.fit.splitMeasured}};
    backward["rule"] = r.fit.rule.empty() ? Json(nullptr) : Json(r.fit.rule);
    // A sequence-sliced run: each slice's cost relative to the mean slice (costs.slice_costs).
    const Json slices = r.project.costs.sliceCosts.empty() ? Json(nullptr) : Json(r.project.costs.sliceCosts);
    const Json out{{"schedule", r.schedule},
                   {"samples", r.fit.samples},
                   {"before", side(r.before)},
                   {"after", side(r.after)},
                   {"after_list_scheduler", side(r.listAfter)},
                   {"runtime_fit", r.runtime ? Json(runtimeFitJson(*r.runtime)) : Json(nullptr)},
                   {"runtime_refusal", r.runtimeRefusal.empty() ? Json(nullptr) : Json(r.runtimeRefusal)},
                   {"timing", r.runtime ? Json(r.runtime->model) : Json(timingName(r.project.costs.timing))},
                   {"layers", layers},
                   {"backward", backward},
                   {"slice_costs", slices},
                   {"comm_us", r.project.costs.comm},
                   {"comm_from_waits_us", r.commFromWaits},
                   {"note", r.project.costs.note},
                   {"output", output}};
    return out.dump(2) + '\n';
}

} // namespace

void addCalibrateCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand(
        "calibrate",
        "Fit manual costs (per range of the model's layers, transfer time) to a measured trace, write the "
        "calibrated project and show the prediction's error before and after");
    auto options = std::make_shared<CalibrateOptions>();
    options->project.addTo(*command);
    options->project.addTraceOptions(*command);
    command->get_option("--trace")->required();
    command->add_option("-o,--output", options->output, "Calibrated project to write (*.stagecraft.json)")
        ->required();
    command
        ->add_option("--input-share", options->inputShare,
                     "B's share of a backward the trace timed whole (no I/W split), between 0 and 1: "
                     "schedules that split the backward are predicted with B = share and W = 1 - share "
                     "of it")
        ->default_val(kDefaultInputShare);
    command->add_flag(
        "--list-scheduler", options->listScheduler,
        "Fit the list scheduler's costs only: no runtime model, even from a torch profiler run");
    command->add_flag("--json", options->json, "Machine-readable JSON");
    command->callback([&result, options] {
        const AnalysisRequest request = loadRequest(options->project);
        CalibrationOptions calibration;
        calibration.inputShare = options->inputShare;
        calibration.runtimeModel = !options->listScheduler;
        CalibrationReport report = calibrateFromTrace(request, calibration);
        // The request shows only the schedule the trace is of; the project written lists the
        // user's schedules, as the project (or its --set) had them.
        const std::vector<std::string> listed = loadInputProject(options->project.input()).schedules;
        if (!listed.empty()) report.project.schedules = listed;
        writeProject(report.project, options->output);
        std::cout << (options->json ? reportJson(report, options->output)
                                    : reportText(report, options->output));
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
