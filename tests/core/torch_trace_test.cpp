// Readers of foreign traces (torch profiler, _dump_chrometrace, Nsight Systems JSON) against files
// torch itself wrote (tests/data/torch-traces/, made by scripts/torch/record_pipelining_traces.py)
// and small hand-written files that follow Nsight Systems' documented export layout.
#include "error.h"
#include "file_io.h"
#include "io/json_scan.h"
#include "io/measured_run.h"
#include "io/measured_trace.h"
#include "io/nsys_trace.h"
#include "io/torch_trace.h"
#include "overlay_support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>
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
        // Every compute op, and each stage's gradient sync from torch's REDUCE_GRAD.
        CHECK(report.ops.size() == computeEvents(*request.trace->timeline) + 4);
        CHECK(report.unmatched.size() == 4); // the optimizer steps torch's step() does not run
        const CalibrationReport c = calibrateFromTrace(request);
        INFO("makespan error before " << c.before.makespanError << ", after " << c.after.makespanError);
        CHECK(std::abs(test::runAgainstPrediction(c.after)) < 0.10);
    }
}

TEST_CASE("torch's _dump_chrometrace grids read as one run per file", "[torch_trace]") {
    for (const char* file :
         {"Interleaved1F1B_pp2_m4_chrometrace.json", "Interleaved1F1B_pp2_m4_comms_chrometrace.json"}) {
        CAPTURE(file);
        const auto ranks = readTorchTrace(traceDir() / file);
        REQUIRE(ranks.size() == 2);
        CHECK(ranks[0].rank == 0);
        CHECK(ranks[1].rank == 1);
        MeasuredRunInfo info;
        const Timeline t = readMeasuredTrace({traceDir() / file}, {}, nullptr, &info);
        CHECK(t.shape.devices == 2);
        CHECK(t.shape.stagesPerPipe == 4);
        CHECK(t.shape.microbatches == 4);
        CHECK(computeEvents(t) == 32);
        CHECK(info.iterations == 1);
    }
}

TEST_CASE("Nsight Systems JSON exports read NVTX ranges by process", "[torch_trace][nsys]") {
    const auto path = std::filesystem::path(STAGECRAFT_REFERENCE_DIR) / "nsys" / "zb_1f1b_2rank_2mb.json";
    const auto ranks = readNsysJson(path);
    REQUIRE(ranks.size() == 2);
    CHECK(ranks[0].ranges.size() == 6);
    MeasuredRunInfo info;
    const Timeline t = readMeasuredTrace({path}, {}, nullptr, &info);
    CHECK(t.shape.devices == 2);
    CHECK(t.shape.stagesPerPipe == 2);
    CHECK(t.shape.microbatches == 2);
    CHECK(t.shape.splitBackward);
    REQUIRE(computeEvents(t) == 12);
    // Rank 1's first op is F0 of stage 1 at 110 µs; times start at rank 0's F0.
    const TimelineEvent& first1 = t.events[6];
    CHECK(first1.device == 1);
    CHECK(first1.op.kind == OpKind::F);
    CHECK(first1.op.stage == 1);
    CHECK(first1.start == Approx(110));
    CHECK(first1.end == Approx(210));
}

TEST_CASE("foreign readers refuse what they cannot map, naming the file, the event and the reason",
          "[torch_trace]") {
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const Error& e) {
            return e.id() + " " + e.message();
        }
        return std::string("no error");
    };
    CHECK(
        message([] {
            parseTorchTrace(R"({"traceEvents":[{"ph":"X","name":"PP:(0F3;7W2)OVERLAP_F_B","ts":1,"dur":2}]})",
                            "t.json");
        }) == "trace.event t.json: traceEvents[0] named 'PP:(0F3;7W2)OVERLAP_F_B': '(0F3;7W2)OVERLAP_F_B' "
              "pairs a F with a W; torch's OVERLAP_F_B runs one forward (F) and then one whole backward (B)");
    CHECK(message([] {
              parseTorchTrace(R"({"traceEvents":[{"ph":"X","name":"PP:0X1","ts":1,"dur":2}]})", "t.json");
          }) == "trace.event t.json: traceEvents[0] named 'PP:0X1': '0X1' names no torch action type (F, I, "
                "B, W, SEND_F, "
                "RECV_F, SEND_B, RECV_B, UNSHARD, RESHARD, REDUCE_GRAD) nor a recompute (R)");
    CHECK(message([] {
              parseTorchTrace(R"({"traceEvents":[{"ph":"X","name":"PP:0F1","ts":1,"dur":-2}]})", "t.json");
          }) == "trace.event t.json: traceEvents[0] 'PP:0F1' needs finite ts and dur >= 0 (µs)");
    CHECK(message([] {
              parseTorchTrace(R"({"traceEvents":[{"ph":"X","name":"PP:0F1","ts":1,)", "t.json");
          }).starts_with("trace.json t.json line 1, column "));
    CHECK(message([] {
              std::vector<RankTrace> ranks(2);
              ranks[0].source = "a.json";
              ranks[0].rank = 0;
              ranks[0].ranges.push_back(ActionRange{RangeKind::F, 0, 0, -1, 0, 1, 3});
              ranks[1].source = "b.json";
              ranks[1].rank = 1;
              ranks[1].ranges.push_back(ActionRange{RangeKind::F, 0, 0, -1, 0, 1, 5});
              assembleMeasuredRun(ranks);
          }) ==
          "trace.shape b.json: event 5 (0F0): stage 0 runs on rank 0 (a.json) and on rank 1; a stage belongs "
          "to one rank");
    CHECK(message([] {
              std::vector<RankTrace> ranks(2);
              ranks[0].source = "a.json";
              ranks[0].rank = 3;
              ranks[1].source = "b.json";
              ranks[1].rank = 3;
              assembleMeasuredRun(ranks);
          }) == "trace.shape a.json and b.json are both of rank 3; give one file per rank (recordings of one "
                "run made one after the other on one machine are joined; these overlap in time)");
    CHECK(message([] {
              readMeasuredTrace({runFiles("Interleaved1F1B_pp2_m4", 1)}, {}, nullptr, nullptr);
          }).starts_with("trace.shape"));
    MeasuredTraceOptions late;
    late.run.iteration = 7;
    CHECK(
        message([&] { readMeasuredTrace(runFiles("Interleaved1F1B_pp2_m4", 2), late); })
            .ends_with(
                "iteration 7 is not in the trace, which holds 3 complete iterations (0..2; -1 is the last)"));
}

TEST_CASE("a range of a GPU trace is timed by the kernels it launched", "[torch_trace]") {
    const auto path =
        std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "tests/fuzz/corpus/torch_trace/kineto_gpu.json";
    const auto ranks = readTorchTrace(path);
    REQUIRE(ranks.size() == 1);
    CHECK(ranks[0].rank == 1);
    CHECK(ranks[0].clock == "gpu");
    REQUIRE(ranks[0].ranges.size() == 3);
    // PP:1F0 launched two kernels (correlation 21, 22): 160..215 on the GPU.
    CHECK(ranks[0].ranges[0].kind == RangeKind::F);
    CHECK(ranks[0].ranges[0].start == 160);
    CHECK(ranks[0].ranges[0].end == 215);
    // PP:1B0's kernel was launched from another thread (autograd's) while the range was open.
    CHECK(ranks[0].ranges[1].kind == RangeKind::B);
    CHECK(ranks[0].ranges[1].start == 400);
    CHECK(ranks[0].ranges[1].end == 490);
    // A range without kernels keeps its host times.
    CHECK(ranks[0].ranges[2].kind == RangeKind::SendB);
    CHECK(ranks[0].ranges[2].start == 385);
    // Host times on request.
    CHECK(readTorchTrace(path, TraceClock::Host)[0].ranges[0].start == 100);
}

TEST_CASE("a trace of our runtime's host backend is overlaid and calibrated", "[torch_trace][calibrate]") {
    EvaluationInput input;
    input.path = std::string(STAGECRAFT_REFERENCE_DIR) + "/runtime/tiny.stagecraft.json";
    input.schedules = {"zb-h1"};
    input.sets = {"parallel.pp=2", "parallel.microbatches=4", "model.hidden=256", "model.seq_len=128"};
    input.tracePath = std::string(STAGECRAFT_REFERENCE_DIR) + "/host-traces/zb-h1_pp2_m4_host.json";
    input.traceMedian = true;
    const AnalysisRequest request = loadAnalysisRequest(input);
    const AnalysisResult result = analyze(request);
    INFO(result.overlayError);
    REQUIRE(result.overlay);
    // Every op of the prediction, syncs and optimizer steps included: the runtime records them.
    CHECK(result.overlay->report.ops.size() == 2 * 4 * 3 + 4);
    CHECK(result.overlay->report.unmatched.empty());
    const CalibrationReport c = calibrateFromTrace(request);
    CHECK(std::abs(test::runAgainstPrediction(c.after)) < 0.10);
    CHECK(std::abs(test::runAgainstPrediction(c.after)) < std::abs(test::runAgainstPrediction(c.before)));
}

TEST_CASE("one file of several processes gives one rank per process", "[torch_trace]") {
    const auto ranks = parseTorchTrace(
        R"([{"ph":"X","cat":"user_annotation","name":"PP:1F0","pid":900,"tid":1,"ts":5,"dur":1},)"
        R"({"ph":"X","cat":"user_annotation","name":"PP:0F0","pid":12,"tid":1,"ts":1,"dur":2},)"
        R"({"ph":"X","cat":"cpu_op","name":"aten::mm \"x\"\u00e9","pid":12,"tid":1,"ts":1.5,"dur":0.5}])",
        "merged.json");
    REQUIRE(ranks.size() == 2);
    CHECK(ranks[0].rank == -1); // ranks in ascending process id: 12, then 900
    REQUIRE(ranks[0].ranges.size() == 1);
    CHECK(ranks[0].ranges[0].stage == 0);
    CHECK(ranks[1].ranges[0].stage == 1);
    const Timeline t = assembleMeasuredRun(ranks);
    CHECK(t.shape.devices == 2);
    CHECK(t.events[1].start == Approx(4)); // 5 - 1: times from the first op
}

TEST_CASE("the JSON scanner reads escapes and refuses deep nesting and trailing commas", "[torch_trace]") {
    JsonScanner in(R"({"a":"x\"\\\/\n\u00e9\ud83d\ude00","b":[1,2.5e3,-0],"c":{}})", "s.json", "trace.json");
    in.beginObject();
    std::string_view key;
    REQUIRE(in.nextKey(key));
    CHECK(key == "a");
    CHECK(in.readString() == "x\"\\/\n\xC3\xA9\xF0\x9F\x98\x80");
    REQUIRE(in.nextKey(key));
    in.beginArray();
    REQUIRE(in.nextElement());
    CHECK(in.readNumber() == 1);
    REQUIRE(in.nextElement());
    CHECK(in.readNumber() == 2500);
    REQUIRE(in.nextElement());
    CHECK(in.readNumber() == 0);
    CHECK_FALSE(in.nextElement());
    REQUIRE(in.nextKey(key));
    in.skipValue();
    CHECK_FALSE(in.nextKey(key));
    CHECK(in.atEnd());
    auto fails = [](const std::string& text) {
        try {
            JsonScanner s(text, "s.json", "trace.json");
            s.skipValue();
            return s.atEnd() ? std::string("ok") : std::string("trailing");
        } catch (const ParseError& e) {
            return e.id();
        }
    };
    CHECK(fails(std::string(65, '[') + std::string(65, ']')) == "trace.json");
    CHECK(fails(std::string(64, '[') + std::string(64, ']')) == "ok");
    CHECK(fails("[1,]") == "trace.json");
    CHECK(fails("{\"a\":1,}") == "trace.json");
    CHECK(fails("[1 2]") == "trace.json");
    CHECK(fails("\"\\x\"") == "trace.json");
    CHECK(fails("01") == "trailing");
}

TEST_CASE("a torch run of a shape no evaluated schedule has is refused with both shapes", "[torch_trace]") {
    EvaluationInput input;
    input.schedules = {"1f1b", "zb-h1"};
    for (const auto& f : runFiles("ZBVZeroBubble_pp2_m4", 2)) input.tracePaths.push_back(f.string());
    const AnalysisResult result = analyze(loadAnalysisRequest(input));
    CHECK_FALSE(result.overlay);
    CHECK(result.overlayError ==
          "the measured run (2 devices, 4 stages, 4 micro-batches, split backward) has the shape of none of "
          "the "
          "schedules evaluated (1f1b: 4 devices, 4 stages, 8 micro-batches, whole backward; zb-h1: 4 "
          "devices, 4 "
          "stages, 8 micro-batches, split backward); pick one of its shape with --schedule and --set "
          "parallel.pp/microbatches/chunks");
}

TEST_CASE("a torch trace is found by its content, even when its marks start after the first 64 KiB",
          "[torch_trace]") {
    // A rank's file that opens with over 64 KiB of other events: its head names neither torch nor
    // Stagecraft, its rest carries "PP:" ranges, so it is torch's.
    const auto path = std::filesystem::temp_directory_path() /
                      ("stagecraft-late-marks-" + std::to_string(std::random_device{}()) + ".json");
    std::string text = "[";
    while (text.size() < 70 * 1024)
        text += R"({"ph":"X","cat":"python_function","name":"step","pid":12,"tid":1,"ts":0,"dur":1},)";
    text += R"({"ph":"X","cat":"user_annotation","name":"PP:0F0","pid":12,"tid":1,"ts":10,"dur":2},)"
            R"({"ph":"X","cat":"gpu_user_annotation","name":"PP:0F0","pid":0,"tid":7,"ts":11,"dur":3},)"
            R"({"ph":"X","cat":"user_annotation","name":"PP:0F1","pid":12,"tid":1,"ts":15,"dur":2},)"
            R"({"ph":"X","cat":"gpu_user_annotation","name":"PP:0F1","pid":0,"tid":7,"ts":16,"dur":4}])";
    writeFileAtomically(path, text);
    CHECK(detectTraceFormat(path) == TraceFormat::Torch);
    // The GPU copies of the annotations time the ops (Kineto projects each range onto its stream).
    const Timeline t = readMeasuredTrace({path}, {});
    std::filesystem::remove(path);
    REQUIRE(computeEvents(t) == 2);
    CHECK(t.shape.microbatches == 2);
    CHECK(t.events[0].end - t.events[0].start == Approx(3));
    CHECK(t.events[1].end - t.events[1].start == Approx(4));

    // A Stagecraft trace of the same length stays the Stagecraft reader's.
    std::string ours = "[";
    while (ours.size() < 70 * 1024)
        ours += R"({"ph":"X","cat":"python_function","name":"step","pid":0,"tid":1,"ts":0,"dur":1},)";
    ours += R"({"ph":"X","cat":"F","pid":0,"ts":3,"dur":1,"args":{"kind":"F","mb":0,"stage":0}}])";
    writeFileAtomically(path, ours);
    CHECK(detectTraceFormat(path) == TraceFormat::Stagecraft);
    CHECK(readMeasuredTrace({path}, {}).events.size() == 1);
    std::filesystem::remove(path);
}
