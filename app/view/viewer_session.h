#pragma once
// One run of stagecraft-view in its window, frame by frame: the files read on a worker thread
// (the part of a trace read so far drawn as it arrives), the chart built when they are read and
// drawn with the side panel, --follow's re-reads, and the scripted runs (--screenshot,
// --loading-screenshot, --bench) with what they print. main.cpp parses the command line and opens
// the window.

#include "view/side_panel.h"
#include "view/source_loader.h"
#include "view/timeline_view.h"
#include "view/view_chart.h"
#include "view/view_sources.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

struct GLFWwindow;

namespace stagecraft::view {

struct LoadPreview;

struct ViewerOptions {
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

    /// Screenshots and the bench draw as fast as they can and ignore the real pointer.
    bool scripted() const { return !screenshot.empty() || bench; }
};

inline constexpr int kViewExitOk = 0, kViewExitFailure = 1, kViewExitBadInput = 2;

class ViewerSession {
  public:
    using Clock = std::chrono::steady_clock;

    /// `started`: when the program started, for the first-frame and first-preview lines.
    ViewerSession(ViewerOptions options, GLFWwindow* window, ImFont* font, Clock::time_point started);
    ~ViewerSession();

    /// Draws frames until the window closes (a scripted run closes it itself); returns the exit
    /// status. Any read still under way is stopped before it returns.
    int run();

  private:
    /// The scripted sweep of --bench: at each zoom level (fit, then x4 steps to the deepest zoom),
    /// a pan across the whole time axis.
    struct BenchStep {
        double zoom;
        double leftFraction;
    };
    static std::vector<BenchStep> benchScript();

    void waitForEvents();
    /// The loader's news: every file read (the chart is built), or a newer partial chart.
    void advanceLoading();
    void finishLoading();
    /// --follow: files that changed are read again, and the chart rebuilt.
    void followFiles(Clock::time_point now);
    void applyBenchStep();
    /// The window's content; true when the measured rows were switched (the chart is rebuilt
    /// after this frame's draw data is built).
    bool drawWindow();
    void drawChartPane(ImVec2 avail, float sideWidth);
    /// --zoom, --at and --search, once the pane has a width.
    void applyStart();
    /// The frame onto the screen, and what scripted runs save and time of it.
    void present(Clock::time_point t0, bool drewPreview);
    void saveScreenshot(const std::string& path, int width, int height, const char* what);
    void printBench() const;
    void rebuild();

    ViewerOptions m_o;
    GLFWwindow* m_window;
    ImFont* m_font;
    Clock::time_point m_started;

    std::unique_ptr<SourceLoader> m_loader;
    std::unique_ptr<LoadPreview> m_preview; ///< the chart drawn while loading; the view points into it
    std::size_t m_previewsShown = 0;
    bool m_loadingShotDue = false; ///< a new part is drawn and not saved yet (--loading-screenshot)
    std::vector<ViewSource> m_sources;
    bool m_anyBad = false;
    ViewChart m_chart;
    std::string m_chartError;
    TimelineView m_view;
    SidePanel m_side;

    int m_frame = 0; ///< frames drawn since the files were read
    bool m_firstFrame = true;
    std::vector<BenchStep> m_script;
    std::vector<double> m_frameMs;
    std::vector<double> m_buildMs; ///< the CPU part: events, core's draw lists, ImGui's vertices
    double m_lastFrameMs = 0;
    Clock::time_point m_lastPoll;
    bool m_startApplied = false;
    int m_exitCode = kViewExitOk;
};

} // namespace stagecraft::view
