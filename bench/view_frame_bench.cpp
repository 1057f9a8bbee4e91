// The viewer's frame at a million ops, without a window: the chart of 1F1B p=8 m=65536 (unit
// costs, 1,048,576 compute ops) drawn by stagecraft-view's TimelineView into ImGui's draw lists
// at a 1440 x 900 window, at every zoom level from fit to the deepest, each frame panned to a
// new place. This is the CPU part of a frame (core's visible-window fold, the hit test, ImGui's
// vertices); rasterizing them is OpenGL's, measured by `stagecraft-view --bench` (bench/README.md).
// Target: well under the 16 ms of a 60 Hz frame at every zoom. Run: ./build/bench/view_frame_bench
#include "eval/evaluation.h"
#include "view/side_panel.h"
#include "view/timeline_view.h"
#include "view/view_chart.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdlib>
#include <imgui.h>
#include <memory>
#include <vector>

namespace {

using namespace stagecraft;
using namespace stagecraft::view;
using Clock = std::chrono::steady_clock;

constexpr float kWidth = 1440, kHeight = 900;

const std::vector<ViewSource>& millionOps() {
    static const std::vector<ViewSource> sources = [] {
        AnalysisRequest request;
        request.project = defaultProject();
        request.project.schedules = {"1f1b"};
        request.project.parallel.pp = 8;
        request.project.parallel.dp = 1;
        request.project.parallel.tp = 1;
        request.project.parallel.microbatches = 65536;
        request.project.costs.mode = CostMode::Unit;
        ViewSource s;
        s.path = "1f1b.stagecraft.json";
        s.kind = SourceKind::Project;
        s.analysis = std::make_shared<const AnalysisResult>(analyze(request));
        if (s.analysis->outcomes.empty()) std::abort();
        return std::vector<ViewSource>{s};
    }();
    return sources;
}

struct Headless {
    ImFont* font = nullptr;
    Headless() {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = ImVec2(kWidth, kHeight);
        io.DeltaTime = 1.0f / 60;
        font = io.Fonts->AddFontDefault();
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h); // builds the atlas; no texture is uploaded
    }
    ~Headless() { ImGui::DestroyContext(); }
    void frame(TimelineView& view) {
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(kWidth, kHeight));
        ImGui::Begin("##main", nullptr, ImGuiWindowFlags_NoDecoration);
        view.draw(font, ImVec2(kWidth - 340, kHeight - 16));
        ImGui::End();
        ImGui::Render();
    }
};

void BM_ViewFrame(benchmark::State& state) {
    const double zoom = double(state.range(0));
    ViewChart chart;
    chart.build(millionOps(), {});
    TimelineView view;
    view.setMouseEnabled(false);
    view.setChart(&chart, false);
    Headless imgui;
    imgui.frame(view); // lays out the frame for the window's width
    std::vector<double> ms;
    std::size_t step = 0, vertices = 0;
    for (auto _ : state) {
        // Fit, zoom, then pan to the next of 41 places across the axis, as --bench does.
        view.fit();
        view.zoomAbout(zoom, 0);
        const double left = double(step++ % 41) / 40 * chart.frame().timeEnd;
        view.pan(-left * view.mapping().pxPerUs * view.pixelsPerPoint());
        const auto t0 = Clock::now();
        imgui.frame(view);
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        vertices = std::size_t(ImGui::GetDrawData()->TotalVtxCount);
    }
    std::sort(ms.begin(), ms.end());
    state.counters["median_ms"] = ms[ms.size() / 2];
    state.counters["max_ms"] = ms.back();
    state.counters["vertices"] = double(vertices);
    state.counters["items"] = double(view.lastStats().bars + view.lastStats().folds);
}
BENCHMARK(BM_ViewFrame)->RangeMultiplier(16)->Range(1, 1 << 20)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
