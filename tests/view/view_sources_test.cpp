// The viewer, the app and the CLI open the same files with the same results: every kind of file
// the viewer takes is read by stagecraft-view's loadSources (through core/eval) and by what the
// app's File > Open and the CLI call (inputKind, loadMeasuredTrace, loadAnalysisRequest +
// analyze), and the two agree: the kind, the timeline event by event, the iterations, the
// outcomes, and which prediction a trace is paired with (eval's matchTraceOutcome). No display.
#include "../core/torch_runs.h"
#include "eval/evaluation.h"
#include "eval/evaluation_input.h"
#include "eval/runtime_fit.h"
#include "eval/trace_read_options.h"
#include "io/chrome_trace.h"
#include "io/trace_preview.h"
#include "layout/chart_view.h"
#include "sqlite_rank_reader.h"
#include "view/load_preview.h"
#include "view/timeline_view.h"
#include "view/view_chart.h"
#include "view/view_sources.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <imgui.h>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <vector>

using namespace stagecraft;
namespace fs = std::filesystem;

namespace {

const std::string kSource = STAGECRAFT_SOURCE_DIR;
const std::string kRuns = std::string(STAGECRAFT_TORCH_RUNS_DIR) + "/pp2_h512/";
const std::string kTraces = kSource + "/tests/data/torch-traces/";

/// The rank files of one recording of a pp2_h512 run.
std::vector<std::string> recording(const std::string& cls) {
    std::vector<std::string> files;
    for (const auto& f : test::torchRunRecording("pp2_h512", cls)) files.push_back(f.string());
    return files;
}

/// The app's and the CLI's read of a trace: loadMeasuredTrace with the CLI's default options.
MeasuredTrace appTrace(const std::vector<std::string>& files) {
    MeasuredTraceOptions options;
    options.run.pick = IterationPick::One;
    options.run.iteration = -1;
    options.sqlite = sqliteRankReader();
    return loadMeasuredTrace(std::vector<fs::path>(files.begin(), files.end()), options);
}

void requireSameTrace(const std::vector<std::string>& files) {
    INFO(files.front());
    for (const std::string& f : files) CHECK(inputKind(f) == InputKind::Trace);
    const std::vector<view::ViewSource> sources = view::loadSources(files, view::LoadOptions{});
    REQUIRE(sources.size() == 1);
    const view::ViewSource& s = sources.front();
    INFO(s.error);
    REQUIRE(s.error.empty());
    CHECK(s.kind == view::SourceKind::Trace);
    const MeasuredTrace app = appTrace(files);
    REQUIRE(s.trace);
    CHECK(s.trace->events.size() == app.timeline->events.size());
    CHECK(*s.trace == *app.timeline);
    CHECK(s.traceInfo.iterations == app.info.iterations);
    CHECK(s.traceInfo.iteration == app.info.iteration);
    CHECK(s.traceInfo.iterationIds == app.info.iterationIds);
}

AnalysisResult cliAnalysis(const std::string& path, const std::vector<std::string>& traces = {}) {
    EvaluationInput input;
    input.path = path;
    input.tracePaths = traces;
    return analyze(loadAnalysisRequest(input));
}

void requireSameAnalysis(const std::string& path, InputKind kind) {
    INFO(path);
    CHECK(inputKind(path) == kind);
    const std::vector<view::ViewSource> sources = view::loadSources({path}, view::LoadOptions{});
    REQUIRE(sources.size() == 1);
    const view::ViewSource& s = sources.front();
    INFO(s.error);
    REQUIRE(s.error.empty());
    CHECK(s.kind == kind);
    REQUIRE(s.analysis);
    const AnalysisResult cli = cliAnalysis(path);
    REQUIRE(s.analysis->outcomes.size() == cli.outcomes.size());
    for (std::size_t k = 0; k < cli.outcomes.size(); ++k) {
        CHECK(s.analysis->outcomes[k].name == cli.outcomes[k].name);
        CHECK(s.analysis->outcomes[k].prediction.timeline == cli.outcomes[k].prediction.timeline);
    }
}

} // namespace

TEST_CASE("per-rank torch profiler traces of several iterations read as the app and the CLI read them",
          "[sources]") {
    for (const std::string cls : {"DualPipeV", "Interleaved1F1B"}) {
        requireSameTrace(recording(cls));
        const MeasuredTrace app = appTrace(recording(cls));
        CHECK(app.info.iterations > 1); // several iterations, the last one shown by all three
    }
    requireSameTrace(
        {kTraces + "Interleaved1F1B_pp2_m4_rank0.json", kTraces + "Interleaved1F1B_pp2_m4_rank1.json"});
    requireSameTrace({kTraces + "ZBVZeroBubble_pp2_m4_chrometrace.json"});
}

TEST_CASE("the viewer reads a trace with the CLI's --iteration and --median", "[sources]") {
    const std::vector<std::string> files = recording("Interleaved1F1B");
    for (const bool median : {false, true}) {
        INFO("median " << median);
        EvaluationInput cli; // what `stagecraft-cli overlay --trace ... --iteration 1 [--median]` reads
        cli.tracePaths = files;
        cli.traceIteration = 1;
        cli.traceMedian = median;
        cli.sqliteReader = sqliteRankReader();
        const MeasuredTrace expected =
            loadMeasuredTrace(std::vector<fs::path>(files.begin(), files.end()), measuredTraceOptions(cli));
        view::LoadOptions options;
        options.input.traceIteration = 1;
        options.input.traceMedian = median;
        const std::vector<view::ViewSource> sources = view::loadSources(files, options);
        REQUIRE(sources.size() == 1);
        INFO(sources.front().error);
        REQUIRE(sources.front().trace);
        CHECK(*sources.front().trace == *expected.timeline);
        CHECK(sources.front().traceInfo.iteration == expected.info.iteration);
    }
    // The two readings differ, so the check above can fail.
    view::LoadOptions one, middle;
    one.input.traceIteration = 1;
    middle.input.traceMedian = true;
    CHECK_FALSE(*view::loadSources(files, one).front().trace ==
                *view::loadSources(files, middle).front().trace);
}

TEST_CASE("repeated recordings of one run open as one run, as the app and the CLI join them", "[sources]") {
    // Two recordings of torch's Interleaved1F1B run, the second a minute after the first (every
    // event 60 s later), named as record_timing_matrix.py --repeats names them.
    const fs::path dir = fs::temp_directory_path() / ("stagecraft-repeats-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::vector<std::string> files;
    for (int repeat = 0; repeat < 2; ++repeat)
        for (int rank = 0; rank < 2; ++rank) {
            std::ifstream in(kTraces + "Interleaved1F1B_pp2_m4_rank" + std::to_string(rank) + ".json");
            nlohmann::json trace = nlohmann::json::parse(in);
            for (auto& event : trace["traceEvents"])
                if (event.contains("ts") && event["ts"].is_number())
                    event["ts"] = event["ts"].get<double>() + repeat * 60e6;
            files.push_back(
                (dir / ("R_rep" + std::to_string(repeat) + "_rank" + std::to_string(rank) + ".json"))
                    .string());
            std::ofstream(files.back()) << trace.dump();
        }
    CHECK(repeatedRunOf(files[3]) == (dir / "R").string());
    CHECK(repeatedRunOf(kTraces + "Interleaved1F1B_pp2_m4_rank0.json").empty());
    requireSameTrace(files);
    const MeasuredTrace one = appTrace({files[0], files[1]});
    const MeasuredTrace both = appTrace(files);
    CHECK(both.info.iterations == 2 * one.info.iterations);
    // Another run's files after them still begin a run of their own.
    std::vector<std::string> two = files;
    two.push_back(kTraces + "Interleaved1F1B_pp2_m4_rank0.json");
    two.push_back(kTraces + "Interleaved1F1B_pp2_m4_rank1.json");
    CHECK(view::loadSources(two, view::LoadOptions{}).size() == 2);
    fs::remove_all(dir);
}

TEST_CASE("Nsight Systems exports read as the app and the CLI read them", "[sources]") {
    requireSameTrace({kSource + "/tests/data/nsys/zb_1f1b_2rank_2mb.json"});
    if (sqliteRankReader()) requireSameTrace({kSource + "/tests/data/nsys/zb_1f1b_2rank_2mb.sqlite"});
}

TEST_CASE("a Stagecraft trace reads as the app and the CLI read it", "[sources]") {
    requireSameTrace({kSource + "/tests/fuzz/corpus/chrome_trace/stagecraft_1f1b.json"});
    requireSameTrace({kSource + "/tests/fuzz/corpus/chrome_trace/stagecraft_zbv.json"});
}

TEST_CASE("schedule files and projects evaluate as the app and the CLI evaluate them", "[sources]") {
    requireSameAnalysis(kSource + "/tests/fuzz/corpus/schedule_json/1f1b.json", InputKind::Schedule);
    requireSameAnalysis(kRuns + "DualPipeV_pp2_v2_m8_h512.csv", InputKind::Schedule);
    requireSameAnalysis(kSource + "/samples/zb-1.5b.stagecraft.json", InputKind::Project);
}

TEST_CASE("a trace is paired with the prediction the CLI's overlay matches it with", "[sources]") {
    const std::string csv = kRuns + "DualPipeV_pp2_v2_m8_h512.csv";
    const std::vector<std::string> ranks = recording("DualPipeV");
    const AnalysisResult cli = cliAnalysis(csv, ranks);
    REQUIRE(cli.overlay);

    std::vector<std::string> files{csv};
    files.insert(files.end(), ranks.begin(), ranks.end());
    const std::vector<view::ViewSource> sources = view::loadSources(files, view::LoadOptions{});
    REQUIRE(sources.size() == 2);
    view::ViewChart chart;
    chart.build(sources, view::ViewChartOptions{});
    REQUIRE(chart.panels().size() == 2);
    const view::ViewPanel& prediction = chart.panels()[0];
    const view::ViewPanel& trace = chart.panels()[1];
    CHECK(prediction.outcome == int(cli.overlay->outcome));
    CHECK(trace.partner == 0);
    REQUIRE(trace.overlay);
    CHECK(trace.overlay->ops.size() == cli.overlay->report.ops.size());
    CHECK(trace.matchNote.empty());
}

TEST_CASE("a stagecraft-run trace times its project's prediction as the CLI's overlay does", "[sources]") {
    // The runtime's own run predicted itself with its programs' timing (receives posted when their
    // slot frees); the CLI's overlay times the project that way, and so must the viewer, which
    // reads the project and the trace as files of their own, in either order. --project-timing
    // keeps the project's list scheduler in both.
    const std::string project = kSource + "/tests/data/runtime/tiny.stagecraft.json";
    const std::string trace = std::string(STAGECRAFT_HOST_RUNS_DIR) + "/sleep_pp2/zb-h1.json";
    view::LoadOptions options;
    options.input.sets = {"parallel.pp=2", "costs.mode=manual", "costs.f=4000",      "costs.b=4000",
                          "costs.w=4000",  "costs.comm=600",    "model.hidden=1024", "model.seq_len=1024"};
    options.input.traceMedian = true;
    std::vector<double> predicted; // [own timing?]: the CLI's prediction of the run's schedule
    for (const bool projectTiming : {false, true}) {
        INFO("--project-timing " << projectTiming);
        options.input.projectTiming = projectTiming;
        EvaluationInput cliInput = options.input;
        cliInput.path = project;
        cliInput.tracePath = trace;
        const AnalysisResult cli = analyze(loadAnalysisRequest(cliInput));
        REQUIRE(cli.overlay);
        const ScheduleOutcome& matched = cli.outcomes.at(cli.overlay->outcome);
        CHECK(matched.name == "zb-h1");
        predicted.push_back(matched.prediction.report.time.makespan);
        for (const auto& files :
             {std::vector<std::string>{project, trace}, std::vector<std::string>{trace, project}}) {
            const std::vector<view::ViewSource> sources = view::loadSources(files, options);
            REQUIRE(sources.size() == 2);
            const view::ViewSource& evaluated = sources[files.front() == project ? 0 : 1];
            INFO(evaluated.error);
            REQUIRE(evaluated.analysis);
            REQUIRE(evaluated.analysis->outcomes.size() == cli.outcomes.size());
            for (std::size_t k = 0; k < cli.outcomes.size(); ++k)
                CHECK(evaluated.analysis->outcomes[k].prediction.timeline ==
                      cli.outcomes[k].prediction.timeline);
            view::ViewChart chart;
            chart.build(sources, view::ViewChartOptions{});
            const auto paired = std::find_if(chart.panels().begin(), chart.panels().end(),
                                             [](const view::ViewPanel& p) { return p.overlay != nullptr; });
            REQUIRE(paired != chart.panels().end());
            CHECK(paired->overlay->makespanPredicted == Approx(predicted.back()).epsilon(1e-12));
        }
    }
    // The two timings differ on this run (else the test could not tell them apart).
    CHECK(predicted[0] > predicted[1] * 1.01);
}

TEST_CASE("a trace of a schedule that is not shown says why, in eval's words", "[sources]") {
    // The GPipe run beside the DualPipeV schedule: neither names a schedule, and their shapes differ.
    const std::string csv = kRuns + "DualPipeV_pp2_v2_m8_h512.csv";
    const std::vector<std::string> ranks = recording("GPipe");
    const AnalysisResult cli = cliAnalysis(csv, ranks);
    std::vector<std::string> files{csv};
    files.insert(files.end(), ranks.begin(), ranks.end());
    const std::vector<view::ViewSource> sources = view::loadSources(files, view::LoadOptions{});
    view::ViewChart chart;
    chart.build(sources, view::ViewChartOptions{});
    REQUIRE(chart.panels().size() == 2);
    REQUIRE_FALSE(cli.overlay);
    CHECK_FALSE(cli.overlayError.empty());
    CHECK(chart.panels()[1].partner == -1);
    CHECK(chart.panels()[1].matchNote == cli.overlayError);
}

TEST_CASE("the viewer zooms as far as the app: core's ChartView limits", "[sources]") {
    // Headless ImGui (no window, no texture upload), as bench/view_frame_bench.cpp draws.
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1000, 640);
    io.DeltaTime = 1.0f / 60;
    ImFont* font = io.Fonts->AddFontDefault();
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    auto frame = [&](view::TimelineView& v) {
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(1000, 640));
        ImGui::Begin("##main", nullptr, ImGuiWindowFlags_NoDecoration);
        v.draw(font, ImVec2(900, 600));
        ImGui::End();
        ImGui::Render();
    };
    view::ViewChart chart;
    // The chart points into the sources: they outlive it.
    const std::vector<view::ViewSource> sources =
        view::loadSources({kSource + "/tests/fuzz/corpus/schedule_json/1f1b.json"}, {});
    chart.build(sources, {});
    view::TimelineView v;
    v.setMouseEnabled(false);
    v.setChart(&chart, false);
    frame(v);
    CHECK(v.zoom() == 1.0);
    v.zoomAbout(1e12, 0);
    CHECK(v.zoom() == kChartMaxZoom);
    v.zoomAbout(1e-12, 0);
    CHECK(v.zoom() == 1.0);
    frame(v);
    ImGui::DestroyContext();
}

TEST_CASE("a trace read in blocks previews what the reader keeps, and a builder hands over whole charts",
          "[sources]") {
    // 1F1B on 4 devices, m = 8,192: 65,536 slices, four blocks of 16,384 for a TracePreview.
    AnalysisRequest request;
    request.project = defaultProject();
    request.project.schedules = {"1f1b"};
    request.project.parallel.pp = 4;
    request.project.parallel.dp = 1;
    request.project.parallel.microbatches = 8192;
    const AnalysisResult result = analyze(request);
    REQUIRE(result.outcomes.size() == 1);
    const std::string text = timelineToChromeTrace(result.outcomes[0].prediction.timeline);

    view::PreviewBuilder builder(view::ViewChartOptions{});
    builder.startFile("big.json");
    std::size_t blocks = 0;
    std::vector<TimelineEvent> previewed;
    Timeline whole;
    {
        const TracePreview preview([&](std::span<const TimelineEvent> block) {
            ++blocks;
            CHECK(block.size() == TracePreview::kBlockSlices);
            previewed.insert(previewed.end(), block.begin(), block.end());
            builder.add(block);
        });
        whole = parseChromeTrace(text, "big.json");
    }
    CHECK(blocks == whole.events.size() / TracePreview::kBlockSlices);
    // The blocks are the reader's slices (on their pid's row, which is the device here): every
    // whole block of them, the last part (under a block) left to the timeline read at the end.
    const auto place = [](const TimelineEvent& a, const TimelineEvent& b) {
        return std::tie(a.device, a.start, a.end, a.op.kind, a.op.mb, a.op.stage) <
               std::tie(b.device, b.start, b.end, b.op.kind, b.op.mb, b.op.stage);
    };
    const Timeline shaped = view::previewTimeline(previewed);
    CHECK(shaped.shape.devices == whole.shape.devices);
    CHECK(shaped.shape.microbatches == whole.shape.microbatches);
    std::vector<TimelineEvent> part = shaped.events, all = whole.events;
    std::sort(part.begin(), part.end(), place);
    std::sort(all.begin(), all.end(), place);
    CHECK(part.size() == blocks * TracePreview::kBlockSlices);
    CHECK(all.size() - part.size() < TracePreview::kBlockSlices);
    CHECK(std::includes(all.begin(), all.end(), part.begin(), part.end(), place));

    // The builder draws what it has: charts come whole, the newest one, once each.
    std::unique_ptr<view::LoadPreview> chart;
    for (int wait = 0; wait < 600 && !chart; ++wait) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        chart = builder.take();
    }
    REQUIRE(chart);
    CHECK(builder.built() >= 1);
    CHECK(chart->events > 0);
    CHECK(chart->events <= whole.events.size());
    CHECK(chart->chart.eventCount() > 0);
    CHECK(chart->chart.eventCount() <= chart->events);
    CHECK(chart->chart.panels().size() == 1);
    builder.stop(); // returns, with no build left running
}
