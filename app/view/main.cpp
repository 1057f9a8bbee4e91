// stagecraft-view: a Dear ImGui timeline of traces, schedule files and projects, drawn through
// core's windowed chart model so that frame cost follows pixels, not ops. This file parses the
// command line and opens the window; view/viewer_session.h runs the frames.
//
// Exit status: 0 success; 2 bad usage, no display, or (in --screenshot / --bench runs) a file that
// could not be read; 1 a failure (no OpenGL context, a screenshot that cannot be written).

#include "error.h"
#include "eval/trace_read_options.h"
#include "layout/chart_view.h"
#include "option_table_cli.h"
#include "view/viewer_session.h"

#include <CLI/CLI.hpp>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <imgui.h>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace stagecraft;
using namespace stagecraft::view;

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

/// The command line into `o`; an exit status when the program ends here (--help, bad usage).
std::optional<int> parseCommandLine(int argc, char** argv, ViewerOptions& o) {
    CLI::App app{"stagecraft-view: a fast timeline of Stagecraft traces, schedule files and projects"};
    app.add_option("files", o.files,
                   "Chrome traces (.json; torch profiler traces one per rank), Nsight Systems exports "
                   "(.sqlite, JSON), schedule files (torch .csv, Stagecraft .json) or projects "
                   "(*.stagecraft.json), stacked on one time axis")
        ->required();
    app.add_option(
        "--project", o.load.input.projectPath,
        "Project whose model, cluster and costs time the schedule files (default: the built-in one)");
    app.add_option("--set", o.load.input.sets, "Override a project field: --set parallel.pp=8 (repeatable)");
    // --iteration, --median, --placement: how a trace is read, as the CLI and the app read it.
    const cli::CliOptionTable traceReading(app, traceReadOptions());
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
    app.add_option("--zoom", o.zoom, "Start zoomed in by this factor (up to the chart's limit, 2^20)")
        ->check(CLI::Range(1.0, kChartMaxZoom));
    app.add_option("--at", o.at, "With --zoom: the time (µs) at the centre");
    app.add_option("--hover", o.hover, "With --screenshot: put the pointer at X Y (window pixels)")
        ->expected(2);
    app.add_option("--width", o.width, "Window width in pixels")->check(CLI::Range(320, 8192));
    app.add_option("--height", o.height, "Window height in pixels")->check(CLI::Range(240, 8192));
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kViewExitOk : kViewExitBadInput;
    }
    try {
        readTraceOptions(traceReading.values(), o.load.input);
    } catch (const Error& e) {
        std::fprintf(stderr, "stagecraft-view: %s\n", e.message().c_str());
        return kViewExitBadInput;
    }
    o.chart.measuredRows = parseMeasuredRows(rows).value_or(MeasuredRows::Overlaid);
    return std::nullopt;
}

/// An OpenGL 3.3 window of the options' size, its context current; null with the reason printed
/// and GLFW ended when none opens.
GLFWwindow* openWindow(const ViewerOptions& o) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    GLFWwindow* window = glfwCreateWindow(o.width, o.height, "stagecraft-view", nullptr, nullptr);
    if (!window) {
        std::fprintf(stderr, "stagecraft-view: cannot open an OpenGL 3.3 window: %s\n", g_glfwError.c_str());
        glfwTerminate();
        return nullptr;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(o.scripted() ? 0 : 1);
    return window;
}

} // namespace

int main(int argc, char** argv) {
    const auto started = ViewerSession::Clock::now();
    ViewerOptions o;
    if (const std::optional<int> status = parseCommandLine(argc, argv, o)) return *status;

    glfwSetErrorCallback(onGlfwError);
    if (!glfwInit()) {
        std::fprintf(stderr,
                     "stagecraft-view: no display: %s\nRun it in a desktop session, over ssh -X, or "
                     "under a virtual display (xvfb-run -a stagecraft-view ...).\n",
                     g_glfwError.empty() ? "the windowing system could not be initialised"
                                         : g_glfwError.c_str());
        return kViewExitBadInput;
    }
    GLFWwindow* window = openWindow(o);
    if (!window) return kViewExitFailure;

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr; // no imgui.ini next to the user's files
    applyStyle();
    ImFont* font = loadFont(15.0f);
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330");

    const int status = ViewerSession(std::move(o), window, font, started).run();

    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return status;
}
