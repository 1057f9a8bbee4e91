// Calibrate once, choose a schedule: a project calibrated on torch's runs (tests/data/torch-traces/)
// holds costs per range of the model's layers, so every registered schedule its shape allows runs
// on them, and each one's stages add up to the measured model.
#include "error.h"
#include "eval/calibration.h"
#include "eval/evaluation_input.h"
#include "eval/project_simulation.h"
#include "generators/registry.h"
#include "overlay_support.h"
#include "project/layer_costs.h"
#include "project/layer_split.h"
#include "sim/calibration.h"
#include "sim/cost_model.h"
#include "torch_runs.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <tuple>

using namespace stagecraft;

namespace {

std::string tracePath(const std::string& file) {
    return (std::filesystem::path(STAGECRAFT_REFERENCE_DIR) / "torch-traces" / file).string();
}

/// torch's run `run` (2 ranks, 4 micro-batches, 4 stages) matched to registered schedule
/// `schedule` of a project of `layers` layers.
AnalysisRequest torchRequest(const std::string& run, const std::string& schedule, int layers) {
    EvaluationInput input;
    input.schedules = {schedule};
    input.sets = {"parallel.pp=2",         "parallel.microbatches=4",
                  "parallel.chunks=2",     "parallel.dp=1",
                  "costs.mode=manual",     "model.layers=" + std::to_string(layers),
                  "name=My measured model"};
    input.tracePaths = {tracePath(run + "_rank0.json"), tracePath(run + "_rank1.json")};
    input.traceMedian = true;
    return loadAnalysisRequest(input);
}

/// The calibrated project showing every registered schedule.
Project withEverySchedule(Project project) {
    project.schedules.clear();
    for (const GeneratorInfo& info : generators()) project.schedules.emplace_back(info.name);
    return project;
}

struct Totals {
    double f = 0, backward = 0;
};

Totals measuredModel(const std::vector<LayerRangeCost>& layers) {
    Totals t;
    for (const LayerRangeCost& r : layers) {
        t.f += r.f;
        t.backward += r.b + r.w;
    }
    return t;
}

} // namespace

TEST_CASE("A project calibrated on one schedule runs every schedule its shape allows",
          "[calibrate][torch_trace]") {
    // 24 layers split evenly into the 4 measured stages; 30 split 7, 8, 8, 7 (one fewer on the
    // ends, layer_split's rule) and into 2 stages of 15.
    for (const auto& [run, schedule, layers] : {std::tuple{"Interleaved1F1B_pp2_m4", "interleaved", 24},
                                                std::tuple{"Interleaved1F1B_pp2_m4", "interleaved", 30},
                                                std::tuple{"ZBVZeroBubble_pp2_m4", "zb-v", 24}}) {
        CAPTURE(run, schedule, layers);
        const AnalysisRequest request = torchRequest(run, schedule, layers);
        const CalibrationReport report = calibrateFromTrace(request);
        const Project& calibrated = report.project;

        // The user's project, with measured costs: name, model, cluster and memory as they were.
        CHECK(calibrated.name == "My measured model");
        CHECK(calibrated.model == request.project.model);
        CHECK(calibrated.cluster == request.project.cluster);
        CHECK(calibrated.memory == request.project.memory);
        CHECK(calibrated.costs.mode == CostMode::Manual);
        CHECK(calibrated.costs.stages.empty());
        CHECK_FALSE(calibrated.costs.note.empty());
        const std::vector<int> held = splitLayers(layers, 4);
        REQUIRE(calibrated.costs.layers.size() == 4);
        int first = 0;
        for (std::size_t s = 0; s < 4; ++s) {
            const LayerRangeCost& r = calibrated.costs.layers[s];
            CHECK(r.first == first);
            CHECK(r.last == first + held[s] - 1);
            first = r.last + 1;
            // What the trace did not time apart is split by the stated rule, never left at 0.
            CHECK(r.f > 0);
            CHECK(r.b > 0);
            CHECK(r.w > 0);
        }
        const bool split = std::string(run).starts_with("ZBV");
        CHECK(report.fit.splitMeasured == split);
        CHECK(report.fit.rule.empty() == split);
        if (!split) {
            CHECK(report.fit.rule ==
                  "the backward was timed whole (no I/W split): B = 50% and W = 50% of it");
            CHECK(calibrated.costs.note.find(report.fit.rule) != std::string::npos);
            for (const LayerRangeCost& r : calibrated.costs.layers) CHECK(r.b == r.w);
        }

        // Every registered schedule runs, except those whose own rules the shape breaks.
        AnalysisRequest every;
        every.project = withEverySchedule(calibrated);
        const AnalysisResult result = analyze(every);
        for (const ScheduleRefusal& r : result.refusals) {
            INFO(r.name << ": [" << r.id << "] " << r.message);
            CHECK(r.stage != RefusalStage::Evaluation);
        }
        CHECK(result.outcomes.size() + result.refusals.size() == generators().size());
        CHECK(result.outcomes.size() >= generators().size() - 1); // 30 layers: bitpipe's halves do not split

        // Each schedule's stages (one pipe of them) add up to the model the trace measured, per
        // micro-batch: a sequence slice's op is its share of it (Seq1F1B).
        const Totals model = measuredModel(calibrated.costs.layers);
        for (const ScheduleOutcome& o : result.outcomes) {
            INFO(o.name);
            const Schedule& s = o.prediction.schedule;
            const CostSetup setup = buildCostSetup(calibrated, s);
            Totals sum;
            for (int stage = 0; stage < s.stagesPerPipe; ++stage) {
                sum.f += setup.costs.duration[int(OpKind::F)][std::size_t(stage)];
                sum.backward += setup.costs.duration[int(OpKind::B)][std::size_t(stage)] +
                                setup.costs.duration[int(OpKind::W)][std::size_t(stage)];
            }
            CHECK(sum.f * s.sequenceSlices == Approx(model.f).epsilon(1e-12));
            CHECK(sum.backward * s.sequenceSlices == Approx(model.backward).epsilon(1e-12));
        }
    }
}

TEST_CASE("A calibrated project prices a schedule of another cut from the layers its stages hold",
          "[calibrate][torch_trace]") {
    const CalibrationReport report =
        calibrateFromTrace(torchRequest("Interleaved1F1B_pp2_m4", "interleaved", 24));
    const std::vector<LayerRangeCost>& l = report.project.costs.layers;
    // 1F1B on 2 devices: stage 0 holds layers 0-11, the first two measured stages.
    const Schedule oneFOneB = generateSchedule("1f1b", scheduleParams(report.project));
    const CostSetup setup = buildCostSetup(report.project, oneFOneB);
    CHECK(setup.costs.duration[int(OpKind::F)][0] == Approx(l[0].f + l[1].f));
    CHECK(setup.costs.duration[int(OpKind::F)][1] == Approx(l[2].f + l[3].f));
    CHECK(setup.costs.duration[int(OpKind::B)][1] == Approx(l[2].b + l[2].w + l[3].b + l[3].w));
    // pp = 4: each device one measured stage; pp = 8: half of one each.
    Project four = report.project;
    four.parallel.pp = 4;
    const CostSetup quarter = buildCostSetup(four, generateSchedule("zb-h1", scheduleParams(four)));
    CHECK(quarter.costs.duration[int(OpKind::W)][3] == Approx(l[3].w));
    Project eight = report.project;
    eight.parallel.pp = 8;
    const CostSetup eighth = buildCostSetup(eight, generateSchedule("1f1b", scheduleParams(eight)));
    CHECK(eighth.costs.duration[int(OpKind::F)][5] == Approx(l[2].f / 2));
}

TEST_CASE("Calibration refuses what it cannot fit with what to change", "[calibrate][torch_trace]") {
    const AnalysisRequest request = torchRequest("Interleaved1F1B_pp2_m4", "interleaved", 24);
    CalibrationOptions share;
    share.inputShare = 1;
    try {
        calibrateFromTrace(request, share);
        FAIL("an input share of 1 was accepted");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "calibrate.options");
        CHECK(e.message() == "input share = 1: B's share of a backward timed whole must lie between 0 and 1 "
                             "(exclusive), so that both B and W take time");
    }
    // torch's order as torch wrote it runs whatever the layer count; calibration needs to know
    // which layers each measured stage held.
    EvaluationInput input;
    input.path = tracePath("Interleaved1F1B_pp2_m4.csv");
    input.sets = {"costs.mode=manual", "parallel.dp=1", "model.layers=25"};
    input.tracePaths = {tracePath("Interleaved1F1B_pp2_m4_rank0.json"),
                        tracePath("Interleaved1F1B_pp2_m4_rank1.json")};
    try {
        calibrateFromTrace(loadAnalysisRequest(input));
        FAIL("25 layers were cut into 4 measured stages");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "project.layers");
        CHECK(e.field() == "model.layers");
        CHECK(e.message() ==
              "model.layers = 25: the measured run has 4 stages per pipe and needs layers % stages == 0, or "
              "(layers + 2) % stages == 0 with one layer fewer on the first and last stage (24 or 26 layers "
              "would split); calibration gives each measured stage's costs to the layers it held: set "
              "model.layers to the layers of the model the trace ran");
    }
}

TEST_CASE("calibrate fits the transfer time to the measured op starts, not to the waits alone",
          "[calibrate][torch_runs]") {
    // The recordings of tests/data/torch-runs (8 layers, 8 micro-batches): calibrated on the
    // ZBVZeroBubble run, the list scheduler predicts the Interleaved1F1B run of the same model.
    // The waits alone gave 5.9 ms per transfer (the runtime's posts, waits and gaps around a
    // 0.1 ms transfer) and predicted the held-out run 17 % short.
    auto request = [&](const std::string& cls, const std::string& schedule) {
        EvaluationInput input;
        input.schedules = {schedule};
        input.sets = {"parallel.pp=2", "parallel.microbatches=8", "parallel.chunks=2",
                      "parallel.dp=1", "costs.mode=manual",       "model.layers=8"};
        for (const auto& f : test::torchRunFiles("pp2_h1024", cls)) input.tracePaths.push_back(f.string());
        input.traceMedian = true;
        return loadAnalysisRequest(input);
    };
    const CalibrationReport report = calibrateFromTrace(request("ZBVZeroBubble", "zb-v"));
    CHECK(report.project.costs.comm < 0.5 * report.commFromWaits);
    CHECK(std::abs(test::runAgainstPrediction(report.after)) < 0.05);
    CHECK(report.project.costs.note.find("fitted to the measured op starts") != std::string::npos);

    AnalysisRequest heldOut = request("Interleaved1F1B", "interleaved");
    heldOut.project.costs = report.project.costs;
    const AnalysisResult predicted = analyze(heldOut);
    REQUIRE(predicted.overlay);
    CHECK(std::abs(test::runAgainstPrediction(predicted.overlay->report)) < 0.10);
}

TEST_CASE("A run with recompute ops is fitted on its F, B and W; its recomputes are priced as F",
          "[calibrate]") {
    // 1F1B with an R before every B (p = 4, m = 8), manual costs: the "run" is its own prediction.
    Project truth;
    truth.costs.mode = CostMode::Manual;
    truth.costs.f = 3000;
    truth.costs.b = 2000;
    truth.costs.w = 1000;
    truth.parallel.pp = 4;
    truth.parallel.microbatches = 8;
    truth.model.layers = 8;
    const Prediction run = predict(truth, generateSchedule("1f1b-recompute", truth.parallel));
    const CostFit fit = fitCosts(run.timeline, truth);
    REQUIRE(fit.costs.layers.size() == 4);
    for (const LayerRangeCost& l : fit.costs.layers) {
        CHECK(l.f == Approx(3000));
        CHECK(l.b + l.w == Approx(3000));
    }
    CHECK(fit.samples == std::size_t(4 * 8 * 2)); // F and B; the 32 recomputes are not samples
    Project calibrated = truth;
    calibrated.costs = fit.costs;
    CHECK(predict(calibrated, generateSchedule("1f1b-recompute", calibrated.parallel)).timeline.makespan() ==
          Approx(run.timeline.makespan()));
}
