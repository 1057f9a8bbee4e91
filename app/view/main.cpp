// stagecraft-view: a Dear ImGui timeline of traces, schedule files and projects, drawn through
// core's windowed chart model so that frame cost follows pixels, not ops.
//
// Exit status: 0 success; 2 bad usage, no display, or (in --screenshot / --bench runs) a file that
// could not be read; 1 a failure (no OpenGL context, a screenshot that cannot be written).

#include "error.h"
#include "view/frame_capture.h"
#include "view/load_preview.h"
#include "view/loading_panel.h"
#include "view/side_panel.h"
#include "view/source_loader.h"
#include "view/timeline_view.h"
#include "view/view_chart.h"
#include "view/view_sources.h"

#include <CLI/CLI.hpp>
#include <GLFW/glfw3.h>
#include <algorithm>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <imgui.h>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace stagecraft;
using namespace stagecraft::view;
using Clock = std::chrono::steady_clock;

constexpr int kExitOk = 0, kExitFailure = 1, kExitBadInput = 2;

struct Options {
    std::vector<std::string> files;
    LoadOptions load;
    ViewChartOptions chart;
    bool follow = false;
    std::string screenshot;
    std::string loadingScreenshot; ///< frames that draw part of a trace as it loads, the last one kept
    int frames = 3;
    bool bench = false;
    std::string search;
    double zoom = 1;
    double at = -1; ///< with zoom: the time at the centre
    int width = 1440, height = 900;
    std::vector<float> hover; ///< x, y: the pointer of scripted runs (screenshots of tooltips)
};

std::string g_glfwError;

void onGlfwError(int code, const char* text) {
    g_glfwError = "GLFW error " + std::to_string(code) + ": " + text;
}

ImFont* loadFont(float px) {
    ImGuiIO& io = ImGui::GetIO();
    // DejaVu Sans (Debian's fonts-dejavu-core) when present, for µ and readable small sizes;
    // ImGui's built-in font otherwise.
    for (const char* path :
         {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/dejavu/DejaVuSans.ttf"}) {
        if (!std::filesystem::exists(path)) continue;
        static const ImWchar ranges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2010, 0x22FF, 0};
        if (ImFont* f = io.Fonts->AddFontFromFileTTF(path, px, nullptr, ranges)) return f;
    }
    return io.Fonts->AddFontDefault();
}

void applyStyle() {
    ImGui::StyleColorsLight();
    ImGuiStyle& s = ImGui::GetStyle();
    s.WindowRounding = 0;
    s.ChildRounding = 0;
    s.FrameRounding = 3;
    s.GrabRounding = 3;
    s.WindowPadding = ImVec2(8, 8);
    s.ItemSpacing = ImVec2(8, 5);
    s.Colors[ImGuiCol_WindowBg] = ImVec4(1, 1, 1, 1);
    s.Colors[ImGuiCol_Border] = ImVec4(0.82f, 0.84f, 0.87f, 1);
    s.Colors[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
    s.Colors[ImGuiCol_PlotHistogram] = ImVec4(0.27f, 0.51f, 0.71f, 1);
}

struct Statistics {
    double median = 0, p99 = 0, max = 0;
};

Statistics statistics(std::vector<double> v) {
    Statistics s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.median = v[v.size() / 2];
    s.p99 = v[std::min(v.size() - 1, std::size_t(std::ceil(0.99 * double(v.size()))) - 1)];
    s.max = v.back();
    return s;
}

/// The scripted sweep of --bench: at each zoom level (fit, then x4 steps to the deepest zoom),
/// a pan across the whole time axis; returns the frame count per level.
struct BenchStep {
    double zoom;
    double leftFraction;
};

std::vector<BenchStep> benchScript() {
    std::vector<BenchStep> steps;
    for (double z = 1; z <= kChartMaxZoom; z *= 4)
        for (int i = 0; i <= 40; ++i) steps.push_back({z, i / 40.0});
    return steps;
}

} // namespace

int main(int argc, char** argv) {
    const auto started = Clock::now();
    Options o;
    CLI::App app{"stagecraft-view: a fast timeline of Stagecraft traces, schedule files and projects"};
    app.add_option("files", o.files,
                   "Chrome traces (.json), schedule files (torch .csv, Stagecraft .json) or projects "
                   "(*.stagecraft.json), stacked on one time axis")
        ->required();
    app.add_option(
        "--project", o.load.costsProject,
        "Project whose model, cluster and costs time the schedule files (default: the built-in one)");
    app.add_option("--set", o.load.sets, "Override a project field: --set parallel.pp=8 (repeatable)");
    app.add_option("--iteration", o.load.traceIteration,
                   "Which iteration of a trace of several (default: the last)");
    app.add_option("--palette", o.chart.palette, "Chart style: paper, slides, colorblind, greyscale");
    app.add_flag("--comm", o.chart.showComm, "Draw communication lanes");
    std::string rows = measuredRowsName(o.chart.measuredRows);
    app.add_option("--rows", rows,
                   "A trace paired with a prediction: 'overlaid' (its own panel under the prediction, bars "
                   "coloured by duration error) or 'under-predicted' (each device's measured row under its "
                   "predicted row); R switches")
        ->check(CLI::IsMember(
            {measuredRowsName(MeasuredRows::Overlaid), measuredRowsName(MeasuredRows::UnderPredicted)}))
        ->capture_default_str();
    app.add_flag("--follow", o.follow,
                 "Re-read files when they change (watch a run as its trace is written)");
    app.add_option("--screenshot", o.screenshot, "Render --frames frames, save the window as PNG and exit");
    app.add_option("--loading-screenshot", o.loadingScreenshot,
                   "While a trace loads, save each frame that draws a new part of it as PNG (the last "
                   "one stays), and go on");
    app.add_option("--frames", o.frames, "Frames to render before the screenshot")
        ->check(CLI::Range(1, 100000));
    app.add_flag("--bench", o.bench, "Scripted zoom/pan sweep; prints frame-time statistics and exits");
    app.add_option("--search", o.search, "Find an op at start (as the search box: 3B17, F5)");
    app.add_option("--zoom", o.zoom, "Start zoomed in by this factor")->check(CLI::Range(1.0, 1e6));
    app.add_option("--at", o.at, "With --zoom: the time (µs) at the centre");
    app.add_option("--hover", o.hover, "With --screenshot: put the pointer at X Y (window pixels)")
        ->expected(2);
    app.add_option("--width", o.width, "Window width in pixels")->check(CLI::Range(320, 8192));
    app.add_option("--height", o.height, "Window height in pixels")->check(CLI::Range(240, 8192));
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitOk : kExitBadInput;
    }
    o.chart.measuredRows = parseMeasuredRows(rows).value_or(MeasuredRows::Overlaid);

    glfwSetErrorCallback(onGlfwError);
    if (!glfwInit()) {
        std::fprintf(stderr,
                     "stagecraft-view: no display: %s\nRun it in a desktop session, over ssh -X, or "
                     "under a virtual display (xvfb-run -a stagecraft-view ...).\n",
                     g_glfwError.empty() ? "the windowing system could not be initialised"
                                         : g_glfwError.c_str());
        return kExitBadInput;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    const bool scripted = !o.screenshot.empty() || o.bench;
    GLFWwindow* window = glfwCreateWindow(o.width, o.height, "stagecraft-view", nullptr, nullptr);
    if (!window) {
        std::fprintf(stderr, "stagecraft-view: cannot open an OpenGL 3.3 window: %s\n", g_glfwError.c_str());
        glfwTerminate();
        return kExitFailure;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(scripted ? 0 : 1);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr; // no imgui.ini next to the user's files
    applyStyle();
    ImFont* font = loadFont(15.0f);
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330");

    // Every file is read on a worker thread: the first frame shows at once, with a progress bar;
    // the part of a trace read so far is drawn as it arrives (charts built on the loader's preview
    // thread, each handed over whole), and the chart of every file follows when they are read.
    auto loader = std::make_unique<SourceLoader>(o.files, o.load, o.chart, [] { glfwPostEmptyEvent(); });
    std::unique_ptr<LoadPreview> preview; ///< the chart drawn while loading; the view points into it
    std::size_t previewsShown = 0;
    bool loadingShotDue = false; ///< a new part is drawn and not saved yet (--loading-screenshot)
    std::vector<ViewSource> sources;
    bool anyBad = false;
    ViewChart chart;
    std::string chartError;
    auto rebuild = [&]() {
        chartError.clear();
        try {
            chart.build(sources, o.chart);
        } catch (const std::exception& e) { // core's Error, or out of memory
            chartError = e.what();
            chart = ViewChart{};
            std::fprintf(stderr, "stagecraft-view: %s\n", chartError.c_str());
        }
    };
    TimelineView view;
    view.setChart(&chart, false);
    view.setMouseEnabled(!scripted || o.hover.size() == 2);
    SidePanel side;
    // A bad file is reported here and in the window; the others still show.
    auto finishLoading = [&] {
        sources = loader->take();
        loader.reset();
        for (const ViewSource& s : sources) {
            if (!s.error.empty()) {
                std::fprintf(stderr, "stagecraft-view: %s\n", s.error.c_str());
                anyBad = true;
            } else {
                std::string read = s.path;
                for (std::size_t i = 1; i < s.runFiles.size(); ++i) read += " + " + s.runFiles[i];
                std::fprintf(stderr, "stagecraft-view: read %s in %.3f s", read.c_str(), s.loadSeconds);
                if (s.trace)
                    std::fprintf(stderr, " (%zu events; timeline %.3f s, counters %.3f s)",
                                 s.trace->events.size(), s.loadSeconds - s.counterSeconds, s.counterSeconds);
                std::fprintf(stderr, "\n");
            }
        }
        if (previewsShown > 0)
            std::fprintf(stderr, "stagecraft-view: %zu partial charts drawn while loading\n", previewsShown);
        // A window zoomed during the load stays put. The view lets go of the preview before the
        // chart is built, so the two (each the size of the trace) are not held at once.
        view.setChart(&chart, preview != nullptr);
        preview.reset();
        rebuild();
    };

    int frame = 0; ///< frames drawn since the files were read
    bool firstFrame = true;
    const std::vector<BenchStep> script = o.bench ? benchScript() : std::vector<BenchStep>{};
    std::vector<double> frameMs;
    std::vector<double> buildMsAll; ///< the CPU part: events, core's draw lists, ImGui's vertices
    double lastFrameMs = 0;
    auto lastPoll = Clock::now();
    bool startApplied = false;
    int exitCode = kExitOk;

    while (!glfwWindowShouldClose(window)) {
        // Interactive: sleep until input (or, with --follow, the next look at the files), so an idle
        // viewer costs nothing; scripted runs draw as fast as they can. While the files load, the
        // progress bar moves a few times a second and leaves the cores to the reader (a partial
        // chart costs a frame's drawing, which a software rasterizer spreads over every core, so
        // it is drawn once a second, or at once for input).
        if (loader && preview)
            glfwWaitEventsTimeout(1.0); // input, a newer part and the end at once; the bar once a second
        else if (loader)
            glfwWaitEventsTimeout(0.05);
        else if (scripted && o.follow)
            glfwWaitEventsTimeout(0.01); // a screenshot of a followed file: frames are time, not speed
        else if (scripted)
            glfwPollEvents();
        else
            glfwWaitEventsTimeout(o.follow ? 0.5 : 1.0);
        const auto t0 = Clock::now();
        if (loader && loader->done()) {
            finishLoading();
        } else if (loader) {
            if (std::unique_ptr<LoadPreview> next = loader->takePreview()) {
                const bool first = !preview;
                preview = std::move(next);
                view.setChart(&preview->chart, !first);
                loadingShotDue = !o.loadingScreenshot.empty();
                if (++previewsShown == 1)
                    std::fprintf(stderr,
                                 "stagecraft-view: first partial chart %.3f s after start (%zu events, "
                                 "%.0f %% read)\n",
                                 std::chrono::duration<double>(Clock::now() - started).count(),
                                 preview->events, 100 * loader->progress());
            }
        }
        if (!loader && o.follow && t0 - lastPoll > std::chrono::milliseconds(500)) {
            lastPoll = t0;
            bool changed = false;
            for (ViewSource& s : sources)
                if (sourceChanged(s)) {
                    ViewSource fresh = reloadSource(s, o.load);
                    // A file caught half-written keeps the last good read, with the message.
                    if (!fresh.error.empty() && (s.trace || s.analysis)) {
                        s.error.clear();
                        s.stamps = fresh.stamps;
                        std::fprintf(stderr, "stagecraft-view: %s (keeping the last read)\n",
                                     fresh.error.c_str());
                        continue;
                    }
                    s = std::move(fresh);
                    if (s.error.empty())
                        std::fprintf(stderr, "stagecraft-view: re-read %s in %.3f s\n", s.path.c_str(),
                                     s.loadSeconds);
                    else
                        std::fprintf(stderr, "stagecraft-view: %s\n", s.error.c_str());
                    changed = true;
                }
            if (changed) {
                rebuild();
                view.setChart(&chart, true);
            }
        }
        if (!script.empty()) {
            const BenchStep& step = script[std::size_t(frame) % script.size()];
            if (view.zoom() > 0 && !chart.empty()) {
                view.fit();
                view.zoomAbout(step.zoom, 0);
                const double span = chart.frame().timeEnd;
                view.pan(-(step.leftFraction * span * view.mapping().pxPerUs) * view.pixelsPerPoint());
            }
        }

        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        if (scripted && o.hover.size() == 2) ImGui::GetIO().MousePos = ImVec2(o.hover[0], o.hover[1]);
        ImGui::NewFrame();
        const ImGuiViewport* vp = ImGui::GetMainViewport();
        ImGui::SetNextWindowPos(vp->WorkPos);
        ImGui::SetNextWindowSize(vp->WorkSize);
        ImGui::Begin("##main", nullptr,
                     ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                         ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
        const float sideWidth = std::min(340.0f, vp->WorkSize.x * 0.3f);
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        ImGui::BeginGroup();
        const bool drawsPreview = loader && preview;
        if (drawsPreview) {
            const float bar = drawLoadingLine(*loader, preview->events, avail.x);
            view.draw(font, ImVec2(avail.x, avail.y - bar));
        } else if (loader) {
            drawLoadingPanel(*loader, o.files, ImVec2(avail.x, avail.y));
        } else if (chart.empty()) {
            ImGui::BeginChild("##empty", ImVec2(avail.x - sideWidth - 8, avail.y), true);
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.75f, 0.1f, 0.1f, 1));
            ImGui::TextWrapped("Nothing to draw.");
            if (!chartError.empty()) ImGui::TextWrapped("%s", chartError.c_str());
            for (const ViewSource& s : sources)
                if (!s.error.empty()) ImGui::TextWrapped("%s", s.error.c_str());
            ImGui::PopStyleColor();
            ImGui::EndChild();
        } else {
            view.draw(font, ImVec2(avail.x - sideWidth - 8, avail.y));
            if (!startApplied && view.pixelsPerPoint() > 0) {
                startApplied = true;
                if (o.zoom > 1) {
                    view.zoomAbout(o.zoom, 0);
                    if (o.at >= 0) {
                        const TimeMapping& m = view.mapping();
                        const double centre = m.xToTime(chart.frame().plotLeft + chart.frame().plotWidth / 2);
                        view.pan((centre - o.at) * m.pxPerUs * view.pixelsPerPoint());
                    }
                }
                if (!o.search.empty()) side.search(o.search, chart, view);
            }
        }
        ImGui::EndGroup();
        bool switchRows = false;
        if (!loader) {
            ImGui::SameLine();
            switchRows = side.draw(sources, chart, view, sideWidth, lastFrameMs, o.chart.measuredRows);
        }
        if (!loader && !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed(GLFW_KEY_R, false)) {
            o.chart.measuredRows = o.chart.measuredRows == MeasuredRows::UnderPredicted
                                       ? MeasuredRows::Overlaid
                                       : MeasuredRows::UnderPredicted;
            switchRows = true;
        }
        ImGui::End();
        if (switchRows) { // the draw data of this frame is built: the next frame draws the new chart
            rebuild();
            view.setChart(&chart, true);
        }

        ImGui::Render();
        const double buildMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        int fbw = 0, fbh = 0;
        glfwGetFramebufferSize(window, &fbw, &fbh);
        glViewport(0, 0, fbw, fbh);
        // The clear is the window's background: software rasterizers pay for every full-window
        // layer, so no ImGui window paints one on top of it.
        const Color bg = view.backgroundColor();
        glClearColor(bg.r / 255.0f, bg.g / 255.0f, bg.b / 255.0f, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        if (drawsPreview && loadingShotDue) {
            loadingShotDue = false;
            try {
                saveFramebufferPng(o.loadingScreenshot, fbw, fbh);
                std::fprintf(stderr,
                             "stagecraft-view: wrote %s while loading (%zu events drawn, %.0f %% read)\n",
                             o.loadingScreenshot.c_str(), preview->events, 100 * loader->progress());
            } catch (const Error& e) {
                std::fprintf(stderr, "stagecraft-view: %s\n", e.what());
                exitCode = kExitFailure;
            }
        }
        if (firstFrame) {
            firstFrame = false;
            std::fprintf(stderr, "stagecraft-view: first frame %.3f s after start\n",
                         std::chrono::duration<double>(Clock::now() - started).count());
        }
        if (!loader) ++frame; // screenshots and the bench count the frames of the chart
        if (!o.screenshot.empty() && frame >= o.frames) {
            try {
                saveFramebufferPng(o.screenshot, fbw, fbh);
                std::fprintf(stderr, "stagecraft-view: wrote %s (%dx%d)\n", o.screenshot.c_str(), fbw, fbh);
            } catch (const Error& e) {
                std::fprintf(stderr, "stagecraft-view: %s\n", e.what());
                exitCode = kExitFailure;
            }
            glfwSetWindowShouldClose(window, 1);
        }
        glfwSwapBuffers(window);
        if (scripted) glFinish(); // the frame's time includes the rasterizer's
        lastFrameMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (o.bench && frame > 2) {
            frameMs.push_back(lastFrameMs);
            buildMsAll.push_back(buildMs);
        } // the first frames build font and frame
        if (o.bench && frame >= int(script.size()) + 2) glfwSetWindowShouldClose(window, 1);
    }

    if (o.bench) {
        // Per zoom level, then overall.
        std::printf("stagecraft-view --bench: %zu events, window %dx%d, %zu frames\n", chart.eventCount(),
                    o.width, o.height, frameMs.size());
        std::printf("%10s %10s %10s %10s\n", "zoom", "median_ms", "p99_ms", "max_ms");
        const std::size_t perLevel = 41;
        for (std::size_t begin = 0; begin < frameMs.size(); begin += perLevel) {
            // Frame i (after the two skipped) ran script step i + 2.
            const std::size_t end = std::min(frameMs.size(), begin + perLevel);
            std::vector<double> level(frameMs.begin() + long(begin), frameMs.begin() + long(end));
            const Statistics s = statistics(level);
            const double z = script[(begin + 2) % script.size()].zoom;
            std::printf("%10.0f %10.2f %10.2f %10.2f\n", z, s.median, s.p99, s.max);
        }
        const Statistics all = statistics(frameMs);
        std::printf("%10s %10.2f %10.2f %10.2f\n", "all", all.median, all.p99, all.max);
        const Statistics build = statistics(buildMsAll);
        std::printf("CPU part (input, core's draw lists, ImGui vertices): median %.2f ms, max %.2f ms; "
                    "the rest is OpenGL rasterization and the swap\n",
                    build.median, build.max);
    }

    loader.reset(); // a read still under way stops (and wakes no window) before GLFW goes
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    if (exitCode != kExitOk) return exitCode;
    return scripted && (anyBad || chart.empty()) ? kExitBadInput : kExitOk;
}
