// check_measured: reads a trace stagecraft-run wrote and checks what a measurement must satisfy
// before anyone trusts it. Used by the mpirun tests; exit 0 when every check holds, 1 otherwise
// (each failed check on stderr).
//
//   check_measured TRACE --project FILE (--schedule NAME | --schedule-file FILE) [--set F=V]...
//                  [--iterations N]
//                  [--makespan-within FRACTION [--transfer-from-trace]] [--peak-above OTHER_TRACE]
//                  [--slots-within FRACTION]
//                  [--partial [--fault-names-peer]]
#include "eval/evaluation_input.h"
#include "io/chrome_trace.h"
#include "sim/overlay.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

using namespace stagecraft;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
    if (ok) return;
    ++failures;
    std::cerr << "check_measured: FAILED: " << what << '\n';
}

nlohmann::json runInfo(const std::string& path, Timeline* timeline) {
    TraceInfo info;
    Timeline t = readChromeTrace(path, TraceReadOptions{}, &info);
    if (timeline) *timeline = std::move(t);
    return nlohmann::json::parse(info.runJson);
}

/// The median time of the run's point-to-point transfers (both ends posted to the arrival), µs.
double medianTransferUs(const Timeline& measured) {
    std::vector<double> times;
    for (const TimelineEvent& e : measured.events)
        if (e.isTransfer()) times.push_back(e.duration());
    if (times.empty()) return 0;
    std::nth_element(times.begin(), times.begin() + std::ptrdiff_t(times.size() / 2), times.end());
    return times[times.size() / 2];
}

double maxPeak(const nlohmann::json& run) {
    double peak = 0;
    for (const auto& p : run.at("peak_bytes")) peak = std::max(peak, p.get<double>());
    return peak;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"check a measured trace"};
    std::string trace, project, schedule, scheduleFile, peakAbove;
    std::vector<std::string> sets;
    int iterations = -1;
    double within = -1, slotsWithin = -1;
    std::string statistic = "mean";
    bool partial = false, faultNamesPeer = false, transferFromTrace = false;
    app.add_option("trace", trace)->required();
    app.add_option("--project", project);
    auto* what = app.add_option_group("schedule");
    what->add_option("--schedule", schedule);
    what->add_option("--schedule-file", scheduleFile, "the schedule file the run was given");
    what->require_option(1);
    app.add_option("--set", sets);
    app.add_option("--iterations", iterations);
    app.add_option("--makespan-within", within);
    app.add_option("--peak-above", peakAbove);
    app.add_option("--slots-within", slotsWithin);
    app.add_option("--statistic", statistic,
                   "of the measured iterations for --makespan-within: mean or median")
        ->check(CLI::IsMember({"mean", "median"}));
    app.add_flag("--transfer-from-trace", transferFromTrace,
                 "--makespan-within against stagecraft-run's timing with the link's transfer time the "
                 "run's own median transfer (a property of the machine), instead of the run's prediction");
    app.add_flag("--partial", partial);
    app.add_flag("--fault-names-peer", faultNamesPeer,
                 "a partial trace's fault names the instruction rank 0 was stuck at and its peer");
    CLI11_PARSE(app, argc, argv);
    try {
        Timeline measured;
        const nlohmann::json run = runInfo(trace, &measured);
        if (scheduleFile.empty())
            check(run.at("schedule") == schedule, "the trace is of schedule " + run.at("schedule").dump());
        else
            check(run.value("schedule_file", "") == scheduleFile,
                  "the trace is of the schedule file " + run.value("schedule_file", nlohmann::json()).dump());
        if (partial) {
            check(run.contains("fault"), "a partial trace names its fault");
            check(!measured.events.empty(), "a partial trace holds the ops that ran");
            if (faultNamesPeer && run.contains("fault")) {
                const nlohmann::json& fault = run.at("fault");
                const std::string instruction = fault.value("instruction", "");
                check(fault.contains("position") && fault.value("rank", -1) == 0,
                      "rank 0's fault names its position in the program");
                check(instruction.rfind("PP:", 0) == 0 &&
                          (instruction.find(" from rank ") != std::string::npos ||
                           instruction.find(" to rank ") != std::string::npos),
                      "the fault names the stuck transfer and its peer: '" + instruction + "'");
            }
            std::cerr << "check_measured: partial trace, fault: "
                      << run.value("fault", nlohmann::json()).dump() << '\n';
            return failures == 0 ? 0 : 1;
        }
        check(!run.contains("fault"), "no fault: " + run.value("fault", nlohmann::json()).dump());
        if (iterations > 0)
            check(run.at("complete_iterations") == iterations, "complete iterations " +
                                                                   run.at("complete_iterations").dump() +
                                                                   " == " + std::to_string(iterations));
        check(run.at("causality_violations") == 0,
              "no receive ends before its send starts: " + run.at("causality_violations").dump() +
                  ", worst " + run.at("worst_causality_gap_us").dump() + " µs");
        // The lowering's slots are the run's memory: nothing is allocated inside an iteration.
        for (const auto& count : run.at("allocations_in_iterations"))
            check(count.get<std::uint64_t>() == 0,
                  "no buffer allocated inside an iteration: " + run.at("allocations_in_iterations").dump());
        check(run.at("dependency_violations") == 0,
              "every dependency holds in measured time: " + run.at("dependency_violations").dump() +
                  ", worst " + run.at("worst_dependency_gap_us").dump() + " µs");

        // The measured ops are the prediction's ops, on the same devices.
        EvaluationInput input;
        if (scheduleFile.empty()) {
            input.path = project;
            input.schedules = {schedule};
        } else {
            input.path = scheduleFile;
            input.projectPath = project;
        }
        input.sets = sets;
        const AnalysisResult result = analyze(loadAnalysisRequest(input));
        if (result.outcomes.empty()) {
            check(false, "the schedule evaluates: " + result.refusals.front().message);
            return 1;
        }
        const Timeline& predicted = result.outcomes.front().prediction.timeline;
        const OverlayReport report = compareTimelines(predicted, measured);
        // The runtime records its gradient syncs and optimizer steps: none may be left unmatched
        // (compareTimelines only lists them, as traces of other tools lack them).
        check(report.unmatched.empty(),
              "every op of the prediction, syncs and optimizer steps included, is measured (" +
                  std::to_string(report.unmatched.size()) + " missing)");
        std::cerr << "check_measured: " << run.at("schedule").get<std::string>() << ": measured iteration "
                  << report.makespanMeasured << " µs, predicted " << report.makespanPredicted
                  << " µs (the prediction " << report.makespanError * 100
                  << " % against the run), bubble measured " << report.bubbleMeasured << " predicted "
                  << report.bubblePredicted << ", peak memory " << maxPeak(run) / 1048576.0 << " MiB\n";
        if (within >= 0) {
            std::vector<double> times;
            for (const auto& us : run.at("iteration_us")) times.push_back(us.get<double>());
            double mean = 0;
            for (const double us : times) mean += us;
            mean /= double(std::max<std::size_t>(1, times.size()));
            if (statistic == "median" && !times.empty()) {
                // A timing test on shared cores: one iteration that another process delayed does
                // not decide it.
                std::sort(times.begin(), times.end());
                mean = times.size() % 2 ? times[times.size() / 2]
                                        : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
            }
            double predictedUs = run.at("predicted_iteration_us").get<double>();
            // The run predicted itself from the same project, timed as it executes: a cost the
            // runtime dropped (or one only it applied) would pass the comparison below and fail here.
            EvaluationInput asRun = input;
            asRun.sets.push_back("costs.timing=stagecraft-run");
            const AnalysisResult own = analyze(loadAnalysisRequest(asRun));
            check(!own.outcomes.empty(), "the schedule evaluates under stagecraft-run's timing");
            if (own.outcomes.empty()) return 1;
            const double projectUs = own.outcomes.front().prediction.report.iterationUs;
            check(std::abs(predictedUs - projectUs) <= 1e-6 * projectUs,
                  "the run predicted " + std::to_string(predictedUs) + " µs, the project " +
                      std::to_string(projectUs) + " µs");
            if (transferFromTrace) {
                // The schedule's timing under the machine's own transfer time: what the run's
                // prediction would be had the project been calibrated on this machine's links.
                const double transferUs = medianTransferUs(measured);
                input.sets.push_back("costs.comm=" + std::to_string(transferUs));
                input.sets.push_back("costs.timing=stagecraft-run");
                const AnalysisResult timed = analyze(loadAnalysisRequest(input));
                check(!timed.outcomes.empty(), "the schedule evaluates with the measured transfer time");
                if (timed.outcomes.empty()) return 1;
                std::cerr << "check_measured: transfers measured " << transferUs
                          << " µs (median); the run predicted " << predictedUs
                          << " µs, with that transfer time "
                          << timed.outcomes.front().prediction.report.iterationUs << " µs\n";
                predictedUs = timed.outcomes.front().prediction.report.iterationUs;
            }
            check(std::abs(mean - predictedUs) <= within * predictedUs,
                  statistic + " measured iteration " + std::to_string(mean) + " µs within " +
                      std::to_string(within * 100) + " % of the predicted " + std::to_string(predictedUs) +
                      " µs");
        }
        if (slotsWithin >= 0) {
            const auto& planned = run.at("slot_bytes_planned");
            const auto& resident = run.at("slot_bytes_resident");
            check(planned.size() == resident.size() && !planned.empty(), "slot bytes of every rank");
            for (std::size_t r = 0; r < planned.size() && r < resident.size(); ++r) {
                const double p = planned[r].get<double>(), m = resident[r].get<double>();
                check(p > 0 && std::abs(m - p) <= slotsWithin * p,
                      "rank " + std::to_string(r) + ": measured slot memory " + std::to_string(m) +
                          " B within " + std::to_string(slotsWithin * 100) + " % of the planned " +
                          std::to_string(p) + " B");
            }
        }
        if (!peakAbove.empty()) {
            const double other = maxPeak(runInfo(peakAbove, nullptr));
            check(maxPeak(run) > other, "peak memory " + std::to_string(maxPeak(run)) + " B above " +
                                            peakAbove + "'s " + std::to_string(other) + " B");
        }
    } catch (const std::exception& e) {
        std::cerr << "check_measured: " << e.what() << '\n';
        return 1;
    }
    return failures == 0 ? 0 : 1;
}
