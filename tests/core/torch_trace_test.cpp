// Readers of foreign traces (torch profiler, _dump_chrometrace, Nsight Systems JSON) against files
// torch itself wrote (tests/data/torch-traces/, made by scripts/torch/record_pipelining_traces.py)
// and small hand-written files that follow Nsight Systems' documented export layout.
#include "error.h"
#include "io/measured_run.h"
#include "io/measured_trace.h"
#include "io/nsys_trace.h"
#include "io/torch_trace.h"

#include <catch2/catch.hpp>
#include <string>

using namespace stagecraft;

namespace {

std::filesystem::path traceDir() {
    return std::filesystem::path(STAGECRAFT_REFERENCE_DIR) / "torch-traces";
}

std::vector<std::filesystem::path> runFiles(const std::string& run, int ranks) {
    std::vector<std::filesystem::path> out;
    for (int r = 0; r < ranks; ++r) out.push_back(traceDir() / (run + "_rank" + std::to_string(r) + ".json"));
    return out;
}

std::size_t computeEvents(const Timeline& t) {
    std::size_t n = 0;
    for (const TimelineEvent& e : t.events) n += e.lane == Lane::Compute ? 1 : 0;
    return n;
}

} // namespace

TEST_CASE("torch profiler traces of Interleaved1F1B read as one run", "[torch_trace]") {
    TraceInfo traceInfo;
    MeasuredRunInfo info;
    const Timeline t = readMeasuredTrace(runFiles("Interleaved1F1B_pp2_m4", 2), {}, &traceInfo, &info);
    CHECK(t.shape.devices == 2);
    CHECK(t.shape.stagesPerPipe == 4);
    CHECK(t.shape.microbatches == 4);
    CHECK(t.shape.chunksPerDevice == 2);
    CHECK_FALSE(t.shape.splitBackward);
    CHECK(info.iterations == 3);
    CHECK(info.iteration == 2);
    CHECK(computeEvents(t) == 4 * 4 * 2);
    CHECK(info.commRanges > 0);
    CHECK(info.commTime > 0);
    CHECK(info.commWaitTime <= info.commTime);
}

TEST_CASE("torch profiler traces of ZBVZeroBubble read as one run", "[torch_trace]") {
    MeasuredRunInfo info;
    const Timeline t = readMeasuredTrace(runFiles("ZBVZeroBubble_pp2_m4", 2), {}, nullptr, &info);
    CHECK(t.shape.devices == 2);
    CHECK(t.shape.stagesPerPipe == 4);
    CHECK(t.shape.splitBackward);
    CHECK(computeEvents(t) == 4 * 4 * 3);
}

#include "eval/calibration.h"
#include "eval/evaluation_input.h"

#include <iostream>

namespace {

EvaluationInput torchRun(const std::string& run, const std::string& schedule) {
    EvaluationInput input;
    if (schedule.empty()) {
        input.path = (traceDir() / (run + ".csv")).string(); // the order torch ran, as torch wrote it
        input.sets = {"costs.mode=manual", "parallel.dp=1"};
    } else {
        input.schedules = {schedule};
        input.sets = {"parallel.pp=2", "parallel.microbatches=4", "parallel.chunks=2",
                      "parallel.dp=1", "costs.mode=manual",       "model.layers=8"};
    }
    for (const auto& f : runFiles(run, 2)) input.tracePaths.push_back(f.string());
    input.traceMedian = true;
    return input;
}

} // namespace

TEST_CASE("the overlay matches every compute op of torch's runs and calibration predicts the makespan",
          "[torch_trace][calibrate]") {
    for (const auto& [run, schedule] :
         {std::pair{"Interleaved1F1B_pp2_m4", "interleaved"}, std::pair{"ZBVZeroBubble_pp2_m4", "zb-v"},
          std::pair{"Interleaved1F1B_pp2_m4", ""}, std::pair{"ZBVZeroBubble_pp2_m4", ""}}) {
        CAPTURE(run);
        const AnalysisRequest request = loadAnalysisRequest(torchRun(run, schedule));
        const AnalysisResult result = analyze(request);
        INFO(result.overlayError);
        REQUIRE(result.overlay);
        const OverlayReport& report = result.overlay->report;
        CHECK(report.ops.size() == computeEvents(*request.trace->timeline));
        const CalibrationReport c = calibrateFromTrace(request);
        std::cerr << run << " before " << c.before.makespanError << " after " << c.after.makespanError
                  << " pred " << c.after.makespanPredicted << " meas " << c.after.makespanMeasured << " comm "
                  << c.fit.costs.comm << " f " << c.fit.costs.f << " b " << c.fit.costs.b << " w "
                  << c.fit.costs.w << "\n";
        CHECK(std::abs(c.after.makespanError) < 0.10);
    }
}
