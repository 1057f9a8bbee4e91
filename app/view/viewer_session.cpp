#include "view/viewer_session.h"

#include "error.h"
#include "view/frame_capture.h"
#include "view/load_preview.h"
#include "view/loading_panel.h"

#include <GLFW/glfw3.h>
#include <algorithm>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <cmath>
#include <cstdio>
#include <imgui.h>

namespace stagecraft::view {
namespace {

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

double secondsSince(ViewerSession::Clock::time_point t) {
    return std::chrono::duration<double>(ViewerSession::Clock::now() - t).count();
}

/// What was read of each file, or why not; true when a file could not be read.
bool reportReads(const std::vector<ViewSource>& sources) {
    bool anyBad = false;
    for (const ViewSource& s : sources) {
        if (!s.error.empty()) {
            std::fprintf(stderr, "stagecraft-view: %s\n", s.error.c_str());
            anyBad = true;
            continue;
        }
        std::string read = s.path;
        for (std::size_t i = 1; i < s.runFiles.size(); ++i) read += " + " + s.runFiles[i];
        std::fprintf(stderr, "stagecraft-view: read %s in %.3f s", read.c_str(), s.loadSeconds);
        if (s.trace)
            std::fprintf(stderr, " (%zu events; timeline %.3f s, counters %.3f s)", s.trace->events.size(),
                         s.loadSeconds - s.counterSeconds, s.counterSeconds);
        std::fprintf(stderr, "\n");
    }
    return anyBad;
}

/// Reads `s` again after it changed; false when it did not change. A file caught half-written
/// keeps the last good read, with the message.
bool rereadChanged(ViewSource& s, const LoadOptions& load) {
    if (!sourceChanged(s)) return false;
    ViewSource fresh = reloadSource(s, load);
    if (!fresh.error.empty() && (s.trace || s.analysis)) {
        s.error.clear();
        s.stamps = fresh.stamps;
        std::fprintf(stderr, "stagecraft-view: %s (keeping the last read)\n", fresh.error.c_str());
        return false;
    }
    s = std::move(fresh);
    if (s.error.empty())
        std::fprintf(stderr, "stagecraft-view: re-read %s in %.3f s\n", s.path.c_str(), s.loadSeconds);
    else
        std::fprintf(stderr, "stagecraft-view: %s\n", s.error.c_str());
    return true;
}

} // namespace

ViewerSession::ViewerSession(ViewerOptions options, GLFWwindow* window, ImFont* font,
                             Clock::time_point started)
    : m_o(std::move(options)), m_window(window), m_font(font), m_started(started), m_lastPoll(Clock::now()) {
    // Every file is read on a worker thread: the first frame shows at once, with a progress bar;
    // the part of a trace read so far is drawn as it arrives (charts built on the loader's preview
    // thread, each handed over whole), and the chart of every file follows when they are read.
    m_loader = std::make_unique<SourceLoader>(m_o.files, m_o.load, m_o.chart, [] { glfwPostEmptyEvent(); });
    m_view.setChart(&m_chart, false);
    m_view.setMouseEnabled(!m_o.scripted() || m_o.hover.size() == 2);
    if (m_o.bench) m_script = benchScript();
}

ViewerSession::~ViewerSession() = default;

std::vector<ViewerSession::BenchStep> ViewerSession::benchScript() {
    std::vector<BenchStep> steps;
    // Zoom 4^level: 1, 4, 16 ... up to kChartMaxZoom (an integer counter: a power of 4 is exact).
    for (int level = 0; std::ldexp(1.0, 2 * level) <= kChartMaxZoom; ++level)
        for (int i = 0; i <= 40; ++i) steps.push_back({std::ldexp(1.0, 2 * level), i / 40.0});
    return steps;
}

void ViewerSession::rebuild() {
    m_chartError.clear();
    try {
        m_chart.build(m_sources, m_o.chart);
    } catch (const std::exception& e) { // core's Error, or out of memory
        m_chartError = e.what();
        m_chart = ViewChart{};
        std::fprintf(stderr, "stagecraft-view: %s\n", m_chartError.c_str());
    }
}

int ViewerSession::run() {
    while (!glfwWindowShouldClose(m_window)) {
        waitForEvents();
        const auto t0 = Clock::now();
        advanceLoading();
        if (!m_loader && m_o.follow && t0 - m_lastPoll > std::chrono::milliseconds(500)) followFiles(t0);
        if (!m_script.empty()) applyBenchStep();
        const bool drewPreview = m_loader && m_preview;
        if (drawWindow()) { // the draw data of this frame is built: the next frame draws the new chart
            rebuild();
            m_view.setChart(&m_chart, true);
        }
        present(t0, drewPreview);
    }
    if (m_o.bench) printBench();
    m_loader.reset(); // a read still under way stops (and wakes no window) before GLFW goes
    if (m_exitCode != kViewExitOk) return m_exitCode;
    return m_o.scripted() && (m_anyBad || m_chart.empty()) ? kViewExitBadInput : kViewExitOk;
}

void ViewerSession::waitForEvents() {
    // Interactive: sleep until input (or, with --follow, the next look at the files), so an idle
    // viewer costs nothing; scripted runs draw as fast as they can. While the files load, the
    // progress bar moves a few times a second and leaves the cores to the reader (a partial
    // chart costs a frame's drawing, which a software rasterizer spreads over every core, so
    // it is drawn once a second, or at once for input).
    if (m_loader && m_preview)
        glfwWaitEventsTimeout(1.0); // input, a newer part and the end at once; the bar once a second
    else if (m_loader)
        glfwWaitEventsTimeout(0.05);
    else if (m_o.scripted() && m_o.follow)
        glfwWaitEventsTimeout(0.01); // a screenshot of a followed file: frames are time, not speed
    else if (m_o.scripted())
        glfwPollEvents();
    else
        glfwWaitEventsTimeout(m_o.follow ? 0.5 : 1.0);
}

void ViewerSession::advanceLoading() {
    if (!m_loader) return;
    if (m_loader->done()) {
        finishLoading();
        return;
    }
    std::unique_ptr<LoadPreview> next = m_loader->takePreview();
    if (!next) return;
    const bool first = !m_preview;
    m_preview = std::move(next);
    m_view.setChart(&m_preview->chart, !first);
    m_loadingShotDue = !m_o.loadingScreenshot.empty();
    if (++m_previewsShown == 1)
        std::fprintf(stderr,
                     "stagecraft-view: first partial chart %.3f s after start (%zu events, %.0f %% read)\n",
                     secondsSince(m_started), m_preview->events, 100 * m_loader->progress());
}

void ViewerSession::finishLoading() {
    // A bad file is reported here and in the window; the others still show.
    m_sources = m_loader->take();
    m_loader.reset();
    m_anyBad = reportReads(m_sources);
    if (m_previewsShown > 0)
        std::fprintf(stderr, "stagecraft-view: %zu partial charts drawn while loading\n", m_previewsShown);
    // A window zoomed during the load stays put. The view lets go of the preview before the
    // chart is built, so the two (each the size of the trace) are not held at once.
    m_view.setChart(&m_chart, m_preview != nullptr);
    m_preview.reset();
    rebuild();
}

void ViewerSession::followFiles(Clock::time_point now) {
    m_lastPoll = now;
    bool changed = false;
    LoadOptions load = m_o.load;
    load.traces = openTraces(m_sources); // a project re-read is timed by the traces open beside it
    for (ViewSource& s : m_sources) changed = rereadChanged(s, load) || changed;
    if (!changed) return;
    rebuild();
    m_view.setChart(&m_chart, true);
}

void ViewerSession::applyBenchStep() {
    const BenchStep& step = m_script[std::size_t(m_frame) % m_script.size()];
    if (m_view.zoom() <= 0 || m_chart.empty()) return;
    m_view.fit();
    m_view.zoomAbout(step.zoom, 0);
    const double span = m_chart.frame().timeEnd;
    m_view.pan(-(step.leftFraction * span * m_view.mapping().pxPerUs) * m_view.pixelsPerPoint());
}

bool ViewerSession::drawWindow() {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (m_o.scripted() && m_o.hover.size() == 2) ImGui::GetIO().MousePos = ImVec2(m_o.hover[0], m_o.hover[1]);
    ImGui::NewFrame();
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::Begin("##main", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus);
    const float sideWidth = std::min(340.0f, vp->WorkSize.x * 0.3f);
    ImGui::BeginGroup();
    drawChartPane(ImGui::GetContentRegionAvail(), sideWidth);
    ImGui::EndGroup();
    bool switchRows = false;
    if (!m_loader) {
        ImGui::SameLine();
        switchRows =
            m_side.draw(m_sources, m_chart, m_view, sideWidth, m_lastFrameMs, m_o.chart.measuredRows);
    }
    if (!m_loader && !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed(GLFW_KEY_R, false)) {
        m_o.chart.measuredRows = m_o.chart.measuredRows == MeasuredRows::UnderPredicted
                                     ? MeasuredRows::Overlaid
                                     : MeasuredRows::UnderPredicted;
        switchRows = true;
    }
    ImGui::End();
    return switchRows;
}

void ViewerSession::drawChartPane(ImVec2 avail, float sideWidth) {
    if (m_loader && m_preview) {
        const float bar = drawLoadingLine(*m_loader, m_preview->events, avail.x);
        m_view.draw(m_font, ImVec2(avail.x, avail.y - bar));
    } else if (m_loader) {
        drawLoadingPanel(*m_loader, m_o.files, ImVec2(avail.x, avail.y));
    } else if (m_chart.empty()) {
        ImGui::BeginChild("##empty", ImVec2(avail.x - sideWidth - 8, avail.y), true);
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.75f, 0.1f, 0.1f, 1));
        ImGui::TextWrapped("Nothing to draw.");
        if (!m_chartError.empty()) ImGui::TextWrapped("%s", m_chartError.c_str());
        for (const ViewSource& s : m_sources)
            if (!s.error.empty()) ImGui::TextWrapped("%s", s.error.c_str());
        ImGui::PopStyleColor();
        ImGui::EndChild();
    } else {
        m_view.draw(m_font, ImVec2(avail.x - sideWidth - 8, avail.y));
        if (!m_startApplied && m_view.pixelsPerPoint() > 0) applyStart();
    }
}

void ViewerSession::applyStart() {
    m_startApplied = true;
    if (m_o.zoom > 1) {
        m_view.zoomAbout(m_o.zoom, 0);
        if (m_o.at >= 0) {
            const TimeMapping& m = m_view.mapping();
            const double centre = m.xToTime(m_chart.frame().plotLeft + m_chart.frame().plotWidth / 2);
            m_view.pan((centre - m_o.at) * m.pxPerUs * m_view.pixelsPerPoint());
        }
    }
    if (!m_o.search.empty()) m_side.search(m_o.search, m_chart, m_view);
}

void ViewerSession::saveScreenshot(const std::string& path, int width, int height, const char* what) {
    try {
        saveFramebufferPng(path, width, height);
        std::fprintf(stderr, "stagecraft-view: wrote %s %s\n", path.c_str(), what);
    } catch (const Error& e) {
        std::fprintf(stderr, "stagecraft-view: %s\n", e.what());
        m_exitCode = kViewExitFailure;
    }
}

void ViewerSession::present(Clock::time_point t0, bool drewPreview) {
    ImGui::Render();
    const double buildMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    int fbw = 0, fbh = 0;
    glfwGetFramebufferSize(m_window, &fbw, &fbh);
    glViewport(0, 0, fbw, fbh);
    // The clear is the window's background: software rasterizers pay for every full-window
    // layer, so no ImGui window paints one on top of it.
    const Color bg = m_view.backgroundColor();
    glClearColor(bg.r / 255.0f, bg.g / 255.0f, bg.b / 255.0f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (drewPreview && m_loadingShotDue) {
        m_loadingShotDue = false;
        char what[96];
        std::snprintf(what, sizeof what, "while loading (%zu events drawn, %.0f %% read)", m_preview->events,
                      100 * m_loader->progress());
        saveScreenshot(m_o.loadingScreenshot, fbw, fbh, what);
    }
    if (m_firstFrame) {
        m_firstFrame = false;
        std::fprintf(stderr, "stagecraft-view: first frame %.3f s after start\n", secondsSince(m_started));
    }
    if (!m_loader) ++m_frame; // screenshots and the bench count the frames of the chart
    if (!m_o.screenshot.empty() && m_frame >= m_o.frames) {
        const std::string size = "(" + std::to_string(fbw) + "x" + std::to_string(fbh) + ")";
        saveScreenshot(m_o.screenshot, fbw, fbh, size.c_str());
        glfwSetWindowShouldClose(m_window, 1);
    }
    glfwSwapBuffers(m_window);
    if (m_o.scripted()) glFinish(); // the frame's time includes the rasterizer's
    m_lastFrameMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (m_o.bench && m_frame > 2) { // the first frames build font and frame
        m_frameMs.push_back(m_lastFrameMs);
        m_buildMs.push_back(buildMs);
    }
    if (m_o.bench && m_frame >= int(m_script.size()) + 2) glfwSetWindowShouldClose(m_window, 1);
}

void ViewerSession::printBench() const {
    // Per zoom level, then overall.
    std::printf("stagecraft-view --bench: %zu events, window %dx%d, %zu frames\n", m_chart.eventCount(),
                m_o.width, m_o.height, m_frameMs.size());
    std::printf("%10s %10s %10s %10s\n", "zoom", "median_ms", "p99_ms", "max_ms");
    const std::size_t perLevel = 41;
    for (std::size_t begin = 0; begin < m_frameMs.size(); begin += perLevel) {
        // Frame i (after the two skipped) ran script step i + 2.
        const std::size_t end = std::min(m_frameMs.size(), begin + perLevel);
        std::vector<double> level(m_frameMs.begin() + long(begin), m_frameMs.begin() + long(end));
        const Statistics s = statistics(level);
        const double z = m_script[(begin + 2) % m_script.size()].zoom;
        std::printf("%10.0f %10.2f %10.2f %10.2f\n", z, s.median, s.p99, s.max);
    }
    const Statistics all = statistics(m_frameMs);
    std::printf("%10s %10.2f %10.2f %10.2f\n", "all", all.median, all.p99, all.max);
    const Statistics build = statistics(m_buildMs);
    std::printf("CPU part (input, core's draw lists, ImGui vertices): median %.2f ms, max %.2f ms; "
                "the rest is OpenGL rasterization and the swap\n",
                build.median, build.max);
}

} // namespace stagecraft::view
