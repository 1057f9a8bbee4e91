// `stagecraft-cli calibrate [PROJECT or SCHEDULE FILE] --trace FILE... [-s NAME] -o OUT.stagecraft.json`:
// fits manual costs (per-stage F/B/W, transfer time) to a measured trace with core's
// calibrateFromTrace, writes the calibrated project, and prints the prediction's error before and
// after.
#include "commands.h"
#include "error.h"
#include "eval/calibration.h"
#include "project/project_json.h"
#include "report_format.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace stagecraft::cli {

namespace {

struct CalibrateOptions {
    ProjectOptions project;
    std::string output;
    bool json = false;
};

std::string ms(double us) {
    return fixed(us / 1000, 3) + " ms";
}
std::string pct(double ratio) {
    return (ratio >= 0 ? "+" : "") + fixed(100 * ratio, 2) + "%";
}

std::string reportText(const CalibrationReport& r, const std::string& output) {
    std::vector<std::vector<std::string>> rows{
        {"", "predicted makespan", "measured makespan", "makespan error", "mean |op duration error|"},
        {"before", ms(r.before.makespanPredicted), ms(r.before.makespanMeasured), pct(r.before.makespanError),
         ms(r.before.meanAbsDurationError)},
        {"after", ms(r.after.makespanPredicted), ms(r.after.makespanMeasured), pct(r.after.makespanError),
         ms(r.after.meanAbsDurationError)}};
    std::string out =
        "calibrated " + r.schedule + " from " + std::to_string(r.fit.samples) + " measured ops\n";
    out += textTable(rows);
    std::vector<std::vector<std::string>> stages{{"stage", "F", "B", "W"}};
    for (const StageCostOverride& s : r.project.costs.chunkStages)
        stages.push_back({std::to_string(s.stage), ms(s.f), ms(s.b), ms(s.w)});
    out += textTable(stages);
    out += "comm " + ms(r.project.costs.comm) + " per cross-device dependency (" +
           std::to_string(r.fit.commSamples) + " waited-for transfers)\n";
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
    Json stages = Json::array();
    for (const StageCostOverride& s : r.project.costs.chunkStages)
        stages.push_back({{"stage", s.stage}, {"f_us", s.f}, {"b_us", s.b}, {"w_us", s.w}});
    const Json out{{"schedule", r.schedule}, {"samples", r.fit.samples}, {"before", side(r.before)},
                   {"after", side(r.after)}, {"stages", stages},         {"comm_us", r.project.costs.comm},
                   {"output", output}};
    return out.dump(2) + '\n';
}

} // namespace

void addCalibrateCommand(CLI::App& app, CommandResult& result) {
    auto* command = app.add_subcommand(
        "calibrate",
        "Fit manual costs (per-stage F/B/W, transfer time) to a measured trace, write the calibrated "
        "project and show the prediction's error before and after");
    auto options = std::make_shared<CalibrateOptions>();
    options->project.addTo(*command);
    options->project.addTraceOptions(*command);
    command->get_option("--trace")->required();
    options->project.addIterationOption(*command);
    command->add_option("-o,--output", options->output, "Calibrated project to write (*.stagecraft.json)")
        ->required();
    command->add_flag("--json", options->json, "Machine-readable JSON");
    command->callback([&result, options] {
        const AnalysisRequest request = loadRequest(options->project);
        const CalibrationReport report = calibrateFromTrace(request);
        writeProject(report.project, options->output);
        std::cout << (options->json ? reportJson(report, options->output)
                                    : reportText(report, options->output));
        result.status = kExitOk;
    });
}

} // namespace stagecraft::cli
