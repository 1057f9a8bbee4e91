// The Qt chart at a million ops (1F1B p=64 m=8192, unit costs: 1,048,576 compute ops): one zoom
// step and the repaint of a 1600 x 1000 view into an offscreen QImage, one hover (the bar under
// a point and its tooltip text), and an edit of a p=32 m=256 project to its painted chart (the
// GUI's whole path: analyze, GanttView::setResult, paint). Targets: zoom + repaint and
// edit-to-chart within one 60 Hz frame (16 ms) median, hover within 1 ms. Each iteration is
// timed by itself and the median reported as a counter (median_ms), next to the mean Google
// Benchmark prints. Run: ./build/bench/chart_bench (QT_QPA_PLATFORM=offscreen is set when no
// platform is).
#include "bench_counters.h"
#include "eval/evaluation.h"
#include "gui/gantt_view.h"
#include "layout/chart_rows.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QScrollBar>
#include <algorithm>
#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <vector>

namespace {

using namespace stagecraft;
using namespace stagecraft::gui;
using Clock = std::chrono::steady_clock;

constexpr int kWidth = 1600, kHeight = 1000;

Project project(const char* schedule, int pp, int m) {
    Project p = defaultProject();
    p.schedules = {schedule};
    p.parallel.pp = pp;
    p.parallel.dp = 1;
    p.parallel.tp = 1;
    p.parallel.microbatches = m;
    p.parallel.chunks = 1;
    p.model.layers = 128;
    p.cluster.nodes = (pp + p.cluster.gpusPerNode - 1) / p.cluster.gpusPerNode;
    p.costs.mode = CostMode::Unit;
    return p;
}

AnalysisPtr analyzed(const char* schedule, int pp, int m) {
    AnalysisRequest request;
    request.project = project(schedule, pp, m);
    auto r = std::make_shared<const AnalysisResult>(analyze(request));
    if (!r->refusals.empty() || r->outcomes.empty()) std::abort();
    return r;
}

/// The million-op chart, analysed once for all benchmarks.
const AnalysisPtr& millionOps() {
    static const AnalysisPtr result = analyzed("1f1b", 64, 8192);
    return result;
}

/// 1F1B p=64 m=32768: 4,194,304 compute ops, the size at which the app asks before it analyses.
const AnalysisPtr& fourMillionOps() {
    static const AnalysisPtr result = analyzed("1f1b", 64, 32768);
    return result;
}

struct Views {
    GanttView view;
    QImage image{kWidth, kHeight, QImage::Format_ARGB32_Premultiplied};
    Views() {
        view.resize(kWidth, kHeight);
        view.setAttribute(Qt::WA_DontShowOnScreen);
        view.show();
    }
    void paint() {
        QPainter painter(&image);
        view.render(&painter);
    }
};

using bench::reportTimes;

/// Zoom steps in and out between fit and 5,000x about points across the plot, each followed by a
/// repaint: every iteration is one step at another zoom level and place. Arg 0: the million-op
/// chart; 1: 4,194,304 ops.
void BM_ZoomStepAndRepaint(benchmark::State& state) {
    const AnalysisPtr& chart = state.range(0) == 0 ? millionOps() : fourMillionOps();
    Views v;
    v.view.setResult(chart);
    v.paint();
    std::vector<double> ms;
    int step = 0;
    // STAGECRAFT_CHART_SHOTS=DIR: save some of the painted frames there, to look at them.
    const QString shots = qEnvironmentVariable("STAGECRAFT_CHART_SHOTS");
    const double anchors[] = {0.5, 0.2, 0.8, 0.35, 0.65};
    for (auto _ : state) {
        // 38 steps of 1.25 in (1.25^38 ~ 4,800x), then 38 out, anchors moving along the plot.
        const int phase = step % 76;
        const double factor = phase < 38 ? 1.25 : 1 / 1.25;
        const double anchor = anchors[(step / 76) % 5] * kWidth;
        const auto t0 = Clock::now();
        v.view.zoomBy(factor, anchor);
        v.paint();
        const auto t1 = Clock::now();
        const double elapsed = std::chrono::duration<double>(t1 - t0).count();
        state.SetIterationTime(elapsed);
        ms.push_back(elapsed * 1e3);
        if (!shots.isEmpty() && step < 76 && step % 6 == 0)
            v.image.save(QStringLiteral("%1/zoom-step-%2.png").arg(shots).arg(step, 2, 10, QLatin1Char('0')));
        ++step;
    }
    reportTimes(state, ms);
    state.counters["zoom_last"] = v.view.zoom();
    state.counters["items_last"] = double(v.view.lastPaintItems());
    bench::setOpCounters(state, chart->opCount);
}
BENCHMARK(BM_ZoomStepAndRepaint)
    ->Arg(0)
    ->Arg(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(380);

/// Panning at a medium zoom: a drag step of 40 px and the repaint.
void BM_PanStepAndRepaint(benchmark::State& state) {
    Views v;
    v.view.setResult(millionOps());
    v.view.zoomBy(64, kWidth / 2.0);
    v.paint();
    std::vector<double> ms;
    for (auto _ : state) {
        const auto t0 = Clock::now();
        QScrollBar* h = v.view.horizontalScrollBar();
        h->setValue(h->value() + 40 >= h->maximum() ? 0 : h->value() + 40);
        v.paint();
        const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
        state.SetIterationTime(elapsed);
        ms.push_back(elapsed * 1e3);
    }
    reportTimes(state, ms);
    state.counters["items_last"] = double(v.view.lastPaintItems());
}
BENCHMARK(BM_PanStepAndRepaint)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(200);

/// Hovering: the bar under a point and its tooltip text, at fit and zoomed in, over bars, folds,
/// gaps and the margins (deterministic points).
void BM_Hover(benchmark::State& state) {
    Views v;
    v.view.setResult(millionOps());
    v.view.zoomBy(double(state.range(0)), kWidth * 0.4);
    v.paint();
    std::vector<double> ms;
    std::uint64_t seed = 11;
    std::size_t hits = 0;
    for (auto _ : state) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        const QPoint p(int((seed >> 33) % kWidth), int((seed >> 13) % kHeight));
        const auto t0 = Clock::now();
        const QString tip = v.view.toolTipAt(p);
        const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
        benchmark::DoNotOptimize(tip);
        hits += !tip.isEmpty();
        state.SetIterationTime(elapsed);
        ms.push_back(elapsed * 1e3);
    }
    reportTimes(state, ms);
    state.counters["hit_fraction"] = double(hits) / double(ms.size());
}
BENCHMARK(BM_Hover)->Arg(1)->Arg(300)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(20000);

/// One edit to a painted chart at p=32 m=256 (m alternating with m + 32): analyze (regenerate,
/// simulate, metrics, memory), the view's setResult (content, rows, frame) and the paint.
void BM_EditToChart(benchmark::State& state) {
    static const char* schedules[] = {"1f1b", "interleaved", "zb-v"};
    const char* schedule = schedules[state.range(0)];
    Views v;
    AnalysisRequest request;
    request.project = project(schedule, 32, 256);
    if (state.range(0) == 1) request.project.parallel.chunks = 2;
    std::vector<double> ms;
    std::size_t ops = 0;
    int run = 0;
    for (auto _ : state) {
        request.project.parallel.microbatches = run++ % 2 ? 288 : 256;
        const auto t0 = Clock::now();
        auto result = std::make_shared<const AnalysisResult>(analyze(request));
        v.view.setResult(result);
        v.paint();
        const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
        if (!result->refusals.empty()) state.SkipWithError(result->refusals.front().message.c_str());
        ops = result->opCount;
        state.SetIterationTime(elapsed);
        ms.push_back(elapsed * 1e3);
    }
    reportTimes(state, ms);
    bench::setOpCounters(state, ops);
    state.SetLabel(schedule);
}
BENCHMARK(BM_EditToChart)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(30);

/// Core alone: the items of a window (appendVisible) at fit and zoomed, no painting.
void BM_WindowItems(benchmark::State& state) {
    const AnalysisResult& r = *millionOps();
    std::vector<ChartPanel> panels{{&r.outcomes[0].prediction.timeline, r.outcomes[0].title, ""}};
    ChartOptions options;
    options.widthPt = 1200;
    options.timeUnit = TimeUnit::Units;
    const ChartContent content = scanChart(panels, options);
    const ChartFrame frame = layoutChartFrame(content, options);
    const ChartRows rows(panels, content);
    ChartWindow window;
    window.mapping = frame.fitMapping().zoomedAbout(frame.plotLeft + 400, double(state.range(0)));
    window.x0 = frame.plotLeft;
    window.x1 = frame.plotLeft + frame.plotWidth;
    window.y1 = 1000 / 1.33;
    window.pixelsPerUnit = 1.33;
    std::size_t items = 0;
    for (auto _ : state) {
        Scene scene;
        const ChartWindowStats s = rows.appendVisible(scene, frame, window);
        items = s.bars + s.folds;
        benchmark::DoNotOptimize(scene);
    }
    state.counters["items"] = double(items);
}
BENCHMARK(BM_WindowItems)->Arg(1)->Arg(16)->Arg(256)->Arg(4096)->Unit(benchmark::kMillisecond);

/// Building the windowed model of the million-op chart (once per result, not per zoom step).
void BM_BuildRows(benchmark::State& state) {
    const AnalysisResult& r = *millionOps();
    std::vector<ChartPanel> panels{{&r.outcomes[0].prediction.timeline, r.outcomes[0].title, ""}};
    ChartOptions options;
    options.timeUnit = TimeUnit::Units;
    options.showComm = state.range(0) != 0;
    for (auto _ : state) {
        const ChartContent content = scanChart(panels, options);
        const ChartRows rows(panels, content);
        benchmark::DoNotOptimize(rows.eventCount());
    }
    bench::setOpCounters(state, r.opCount);
}
BENCHMARK(BM_BuildRows)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

} // namespace

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
