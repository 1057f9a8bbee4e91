#pragma once
// The timeline pane: the chart of ViewChart drawn through core's windowed model. Per frame it
// asks core's ChartRows for the visible window's bars (narrow runs folded into counted boxes),
// the axis for the window (appendAxis) and the bar under the mouse (eventAt); it keeps only the
// view state: core's ChartView (time mapping, fit, zoom limits, pan), the vertical scroll, the
// selection.
//
// Wheel zooms about the cursor, drag pans (both directions), F fits, Escape clears the selection;
// hover shows the op, click selects it and outlines what it waits for and what waits for it.

#include "layout/chart_view.h"
#include "view/imgui_scene.h"
#include "view/view_chart.h"

#include <imgui.h>
#include <optional>
#include <string>
#include <vector>

namespace stagecraft::view {

struct ViewFrameStats {
    std::size_t bars = 0, folds = 0, folded = 0;
};

class TimelineView {
  public:
    /// A new chart; `keepWindow` keeps the zoom and the time at the left edge (--follow reloads).
    void setChart(ViewChart* chart, bool keepWindow);
    /// Draws the pane into the current ImGui window, filling `size` pixels.
    void draw(ImFont* font, ImVec2 size);

    void fit();
    /// Zoom by `factor` keeping the time under pane x `anchorPx` (pixels from the pane's left) still.
    void zoomAbout(double factor, double anchorPx);
    /// Moves the content right by `dx` pixels.
    void pan(double dxPx);
    /// Centres event `event` of `panel`, zoomed so it spans about a thirtieth of the plot, and selects it.
    void jumpTo(int panel, int event);
    void select(int panel, int event);
    void clearSelection();

    double zoom() const;
    double pixelsPerPoint() const { return m_k; }
    void setPixelsPerPoint(double k) { m_k = k; }
    /// Scripted runs (screenshots, bench) ignore the mouse: the pointer of a virtual display
    /// sits wherever it was left.
    void setMouseEnabled(bool on) { m_mouse = on; }
    const TimeMapping& mapping() const { return m_view.mapping(); }
    const ViewFrameStats& lastStats() const { return m_stats; }
    std::optional<std::pair<int, int>> selection() const { return m_selection; }
    /// The chart's background (the palette's), which the window clears to.
    Color backgroundColor() const;
    /// Time span shown across the plot.
    double visibleSpan() const;

  private:
    /// Where the pane is this frame: its left edge and scroll (pixels), the chart's origin on
    /// screen, the clip rectangle, and the chart's visible y range (points).
    struct Pane {
        float left = 0, scrollY = 0;
        ImVec2 origin;
        SceneTransform transform;
        ImVec4 clip;
        double top = 0, bottom = 0;
    };
    struct FoldBox;

    /// Lays the chart out for `width` pixels when that changed; false when core refused the width.
    bool layoutFor(float width);
    Pane currentPane() const;
    /// Wheel (zoom about the pointer, with Shift scroll), drag (pan, scroll) and the keys.
    void handleInput(const Pane& pane, bool hovered);
    /// The plot's visible window for core's draw lists.
    ChartWindow plotWindow(const Pane& pane) const;
    /// A measured trace paired with its prediction: each op's fill by its duration error.
    void colourByDurationError(Scene& plot) const;
    void drawPlot(ImDrawList* list, ImFont* font, const Pane& pane, const ChartWindow& window);
    void drawAxis(ImDrawList* list, ImFont* font, const Pane& pane, const ChartWindow& window) const;
    /// The tooltip of what is under the pointer, and a click's selection.
    void handleHover(const Pane& pane, const ChartWindow& window);
    void drawFoldTooltip(const FoldBox& fold) const;
    void relayout(double widthPx);
    void drawHighlights(ImDrawList* list, ImVec2 origin) const;
    void drawTooltip(int panel, int event) const;
    /// Memory strips under the chart, one per device of every panel that has memory: height in
    /// points, and the drawing (visible strips only, one column per pixel from CounterSeries).
    double memoryHeight() const;
    void drawMemory(ImDrawList* list, ImFont* font, ImVec2 origin, double top, double bottom, double x0,
                    double x1) const;
    std::optional<ImVec4> boxOnScreen(ImVec2 origin, int panel, int event) const;

    ViewChart* m_chart = nullptr;
    double m_k = 1.6;                                ///< pixels per point
    double m_widthPx = 0;                            ///< pane width the frame was laid out for
    bool m_fitPending = true;                        ///< fit once the pane has a width
    std::optional<std::pair<double, double>> m_keep; ///< (pxPerUs, originTime) to restore after relayout
    ChartView m_view;                                ///< core's time mapping, fit, zoom limits and pan
    Scene m_decor;                                   ///< background, headers, row labels, legend
    ViewFrameStats m_stats;
    std::optional<std::pair<int, int>> m_selection;
    std::vector<int> m_producers, m_consumers;
    /// The counted boxes of the last frame (points), for their hover text: the drawn scene is
    /// hit-tested, nothing is folded again here.
    struct FoldBox {
        double x0, y0, x1, y1;
        int panel;
        std::string text;
    };
    std::vector<FoldBox> m_folds;
    bool m_dragging = false;
    bool m_mouse = true;
    std::string m_layoutError;   ///< why core refused the frame at this width ("" when it did not)
    double m_scrollRequest = -1; ///< vertical scroll to apply on the next frame (points), -1 none
};

} // namespace stagecraft::view
