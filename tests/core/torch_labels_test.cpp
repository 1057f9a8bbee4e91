// torch's labels as torch writes them, on the recordings torch made (tests/data/torch-runs): the
// single-stage GPipe ranges `Forward i` / `Backward i`, REDUCE_GRAD as the gradient sync, the
// runtime's waits and FSDP hooks reported as what they are, Schedule1F1B's unlabelled compute
// refused with how to label it, and DualPipeV's OVERLAP_F_B ranges read as overlapped F&B slots.
#include "error.h"
#include "eval/calibration.h"
#include "eval/evaluation.h"
#include "eval/evaluation_input.h"
#include "io/measured_trace.h"
#include "io/nsys_trace.h"
#include "io/torch_trace.h"
#include "layout/chart_frame.h"
#include "overlay_support.h"
#include "torch_runs.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

using namespace stagecraft;

namespace {

std::vector<std::filesystem::path> runFiles(const std::string& set, const std::string& cls) {
    return test::torchRunFiles(set, cls);
}

std::string csvOf(const std::string& set, const std::string& cls) {
    return test::torchRunPrefix(set, cls).string() + ".csv";
}

std::size_t computeEvents(const Timeline& t) {
    return std::size_t(std::count_if(t.events.begin(), t.events.end(),
                                     [](const TimelineEvent& e) { return e.lane == Lane::Compute; }));
}

EvaluationInput overlayInput(const std::vector<std::filesystem::path>& files, const std::string& schedule,
                             std::vector<std::string> sets) {
    EvaluationInput input;
    if (schedule.ends_with(".csv"))
        input.path = schedule;
    else
        input.schedules = {schedule};
    input.sets = std::move(sets);
    for (const auto& f : files) input.tracePaths.push_back(f.string());
    input.traceMedian = true;
    return input;
}

std::string messageOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.id() + " " + e.message();
    }
    return "no error";
}

} // namespace

TEST_CASE("GPipe's Forward i / Backward i ranges overlay and calibrate onto gpipe", "[torch_labels]") {
    for (const std::string set : {"pp2_h512", "pp2_h1024", "pp4_h512"}) {
        CAPTURE(set);
        const auto files = runFiles(set, "GPipe");
        const int world = test::torchRunWorld(set);
        MeasuredRunInfo info;
        const Timeline t = readMeasuredTrace(files, {}, nullptr, &info);
        CHECK(t.shape.devices == world);
        CHECK(t.shape.stagesPerPipe == world); // one stage per rank: chunk 0 of its rank
        CHECK(t.shape.microbatches == 8);
        CHECK_FALSE(t.shape.splitBackward);
        CHECK(info.iterations == 32);
        CHECK(computeEvents(t) == std::size_t(2 * 8 * world));

        const AnalysisRequest request = loadAnalysisRequest(overlayInput(
            files, "gpipe",
            {"parallel.pp=" + std::to_string(world), "parallel.microbatches=8", "parallel.dp=1"}));
        const AnalysisResult result = analyze(request);
        INFO(result.overlayError);
        REQUIRE(result.overlay);
        CHECK(result.overlay->report.ops.size() == std::size_t(2 * 8 * world));
        // GPipe scales its gradients outside any label: the syncs stay unmatched.
        CHECK(result.overlay->report.unmatched.size() == std::size_t(2 * world));
        const CalibrationReport c = calibrateFromTrace(request);
        CHECK(std::abs(test::runAgainstPrediction(c.after)) < std::abs(test::runAgainstPrediction(c.before)));
    }
}

TEST_CASE("torch's REDUCE_GRAD is the prediction's gradient sync; waits and FSDP hooks are reported",
          "[torch_labels]") {
    for (const std::string cls : {"Interleaved1F1B", "LoopedBFS", "ZBVZeroBubble"}) {
        CAPTURE(cls);
        const auto files = runFiles("pp2_h512", cls);
        const AnalysisRequest request =
            loadAnalysisRequest(overlayInput(files, csvOf("pp2_h512", cls), {"parallel.dp=1"}));
        const AnalysisResult result = analyze(request);
        INFO(result.overlayError);
        REQUIRE(result.overlay);
        const OverlayOutcome& overlay = *result.overlay;
        const Timeline& predicted = result.outcomes[overlay.outcome].prediction.timeline;
        // Every stage's sync is matched to its REDUCE_GRAD; only the optimizer steps, which torch's
        // step() does not run, are left.
        for (const std::size_t i : overlay.report.unmatched)
            CHECK(predicted.events[i].op.kind == OpKind::Optimizer);
        CHECK(overlay.report.unmatched.size() == 4);
        std::size_t syncs = 0;
        for (const OpDeviation& d : overlay.report.ops) {
            const TimelineEvent& m = result.measured->events[d.measuredEvent];
            if (m.op.kind != OpKind::GradSync) continue;
            ++syncs;
            CHECK(m.lane == Lane::Comm);
            CHECK(m.comm == CommKind::Collective);
            CHECK(m.device == predicted.events[d.predictedEvent].device);
        }
        CHECK(syncs == 4);
        const MeasuredRunInfo& run = *request.trace->run;
        CHECK(run.syncRanges == 4);
        // The runtime's own actions, by kind: the send waits, UNSHARD/RESHARD of every stage, and
        // WAIT_REDUCE_GRAD (Other).
        std::vector<RangeKind> kinds;
        for (const auto& b : run.bookkeeping) {
            kinds.push_back(b.kind);
            CHECK(b.ranges > 0);
            CHECK(b.time >= 0);
        }
        CHECK(kinds == std::vector<RangeKind>{RangeKind::Other, RangeKind::WaitSendF, RangeKind::WaitSendB,
                                              RangeKind::Unshard, RangeKind::Reshard});
    }
}

TEST_CASE("Schedule1F1B's unlabelled compute is refused with how to label it", "[torch_labels]") {
    const auto files = runFiles("pp2_h512", "1F1B");
    const std::string message = messageOf([&] { readMeasuredTrace(files, {}); });
    CAPTURE(message);
    CHECK(message.starts_with("trace.unlabelled " + files[0].string() + ", " + files[1].string() + ": "));
    CHECK(message.find("point-to-point transfer records (gloo:send, gloo:recv) but no range named with a "
                       "pipeline compute action") != std::string::npos);
    CHECK(message.find("record_function(f\"PP:{stage}F{mb}\")") != std::string::npos);
    CHECK(message.find("_PipelineScheduleRuntime with _load_csv") != std::string::npos);
    // A file without transfers either is only empty.
    CHECK(messageOf([] {
              std::vector<RankTrace> ranks(1);
              ranks[0].source = "a.json";
              assembleMeasuredRun(ranks);
          }).starts_with("trace.empty a.json: no range named with a pipeline compute action"));
}

TEST_CASE("DualPipeV's OVERLAP_F_B ranges are overlapped F&B slots of the measured run", "[torch_labels]") {
    for (const std::string set : {"pp2_h512", "pp2_h1024"}) {
        CAPTURE(set);
        const auto files = runFiles(set, "DualPipeV");
        MeasuredRunInfo info;
        const Timeline t = readMeasuredTrace(files, {}, nullptr, &info); // the last iteration
        CHECK(t.shape.devices == 2);
        CHECK(t.shape.stagesPerPipe == 4);
        CHECK(t.shape.splitBackward); // I and W ranges next to the whole backwards
        CHECK(computeEvents(t) == 4 * 8 * 3);
        // 11 overlapped slots per rank, each split where its backward began.
        CHECK(t.shape.overlapped.size() == 22);
        CHECK(info.overlapSlots == 22);
        CHECK(info.overlapsByRule == 0);
        const std::vector<OverlapSlot> slots = overlapSlots(t);
        REQUIRE(slots.size() == 22);
        for (const OverlapSlot& s : slots) {
            const TimelineEvent& f = t.events[s.event];
            const TimelineEvent& b = t.events[s.event + 1];
            const TimelineEvent& w = t.events[s.event + 2];
            CHECK(f.op.kind == OpKind::F);
            CHECK(b.op.kind == OpKind::B);
            CHECK(w.op.kind == OpKind::W);
            CHECK(w.op.stage == b.op.stage);
            CHECK(w.op.mb == b.op.mb);
            CHECK(f.end <= b.start); // the backward's receive wait, if any, lies between
            CHECK(b.end == w.start);
        }

        // On the order torch ran and on the registered dualpipev: every op matched.
        for (const std::string& schedule : {csvOf(set, "DualPipeV"), std::string("dualpipev")}) {
            CAPTURE(schedule);
            const AnalysisRequest request = loadAnalysisRequest(
                overlayInput(files, schedule, {"parallel.pp=2", "parallel.microbatches=8", "parallel.dp=1"}));
            const AnalysisResult result = analyze(request);
            INFO(result.overlayError);
            REQUIRE(result.overlay);
            CHECK(result.overlay->report.ops.size() == 4 * 8 * 3 + 4); // and the 4 syncs
            const Timeline& predicted = result.outcomes[result.overlay->outcome].prediction.timeline;
            CHECK(predicted.shape.overlapped == result.measured->shape.overlapped);
        }
    }
}

TEST_CASE("an OVERLAP_F_B range without CPU ops is divided by the stand-alone rule", "[torch_labels]") {
    // Stand-alone F of stage 0 takes 2 µs and B of stage 1 takes 6; the overlap range of 8 is split
    // 2 + 6. No autograd events: the trace does not show where the backward began.
    const auto ranks = parseTorchTrace(
        R"({"distributedInfo":{"rank":0},"traceEvents":[)"
        R"({"ph":"X","cat":"user_annotation","name":"PP:0F0","pid":1,"ts":0,"dur":2},)"
        R"({"ph":"X","cat":"user_annotation","name":"PP:1B0","pid":1,"ts":10,"dur":6},)"
        R"({"ph":"X","cat":"user_annotation","name":"PP:(0F1;1B1)OVERLAP_F_B","pid":1,"ts":20,"dur":8}]})",
        "t.json");
    REQUIRE(ranks.size() == 1);
    CHECK(ranks[0].overlapsByRule == 1);
    REQUIRE(ranks[0].ranges.size() == 4);
    const ActionRange& f = ranks[0].ranges[2];
    const ActionRange& b = ranks[0].ranges[3];
    CHECK(f.overlap == OverlapHalf::Forward);
    CHECK(f.start == 20);
    CHECK(f.end == 22);
    CHECK(b.overlap == OverlapHalf::Backward);
    CHECK(b.start == 22);
    CHECK(b.end == 28);
}

TEST_CASE("an OVERLAP_F_B range is split where its backward began, each half with its receive wait",
          "[torch_labels]") {
    // The range runs 200..300: the forward's input arrives at 210, its ops end at 230, the
    // backward's input arrives at 250 and its first autograd event starts at 255.
    const auto path =
        std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "tests/fuzz/corpus/torch_trace/overlap_f_b.json";
    const auto ranks = readTorchTrace(path);
    REQUIRE(ranks.size() == 1);
    CHECK(ranks[0].overlapsByRule == 0);
    const auto find = [&](RangeKind kind, int stage, int mb) -> const ActionRange& {
        for (const ActionRange& r : ranks[0].ranges)
            if (r.kind == kind && r.stage == stage && r.mb == mb) return r;
        FAIL("no range " << rangeKindName(kind) << stage << "," << mb);
        return ranks[0].ranges.front();
    };
    const ActionRange& f = find(RangeKind::F, 0, 1);
    CHECK(f.overlap == OverlapHalf::Forward);
    CHECK(f.start == 200);
    CHECK(f.end == 230);
    CHECK(f.wait == 10);
    const ActionRange& b = find(RangeKind::B, 3, 1);
    CHECK(b.overlap == OverlapHalf::Backward);
    CHECK(b.start == 230);
    CHECK(b.end == 300);
    CHECK(b.wait == 20);
}

TEST_CASE("an Nsight export's OVERLAP_F_B ranges are divided by the stand-alone rule", "[torch_labels]") {
    std::vector<NvtxRange> nvtx(3);
    nvtx[0].name = "PP:0F0";
    nvtx[0].startNs = 0;
    nvtx[0].endNs = 3000;
    nvtx[1].name = "PP:1B0";
    nvtx[1].startNs = 4000;
    nvtx[1].endNs = 13000;
    nvtx[2].name = "PP:(0F1;1B1)OVERLAP_F_B";
    nvtx[2].startNs = 20000;
    nvtx[2].endNs = 32000;
    nvtx[2].event = 2;
    const auto ranks = nvtxRangesToRanks(nvtx, "n.json");
    REQUIRE(ranks.size() == 1);
    CHECK(ranks[0].overlapsByRule == 1);
    REQUIRE(ranks[0].ranges.size() == 4);
    CHECK(ranks[0].ranges[2].end == Approx(23)); // 3 : 9 of 12 µs
    CHECK(ranks[0].ranges[3].start == Approx(23));
    // An unrelated NVTX range that only starts with '(' is skipped, not refused.
    nvtx[2].name = "(setup)";
    CHECK(nvtxRangesToRanks(nvtx, "n.json")[0].ranges.size() == 2);
}
