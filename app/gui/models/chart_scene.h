#pragma once
// Builds the chart the window shows and exports: every shown schedule stacked on one shared time
// axis (one Scene from core's layoutGantt), each with its cost assumptions line under it, and a
// measured trace drawn as outlines over the predicted bars of its schedule. The screen and every
// export format draw this same Scene.

#include "gui/models/analysis.h"
#include "layout/scene.h"

#include <string>

namespace stagecraft::gui {

struct ChartSettings {
    std::string palette = "paper"; ///< paper, slides, colorblind, greyscale
    bool showComm = false;
    bool legend = true;
    bool axis = true;
    bool labels = true;
    bool title = true;
    bool overlay = true; ///< draw the measured trace, when there is one
};

/// Role of the outline rects added for measured events.
inline constexpr char kMeasuredRole[] = "measured";

/// The chart of `result` at `widthPt` points wide. Empty scene (0 x 0) when nothing is shown.
Scene buildChartScene(const AnalysisResult& result, const ChartSettings& settings, double widthPt);

/// Add outline rects (role kMeasuredRole, panel `panel`) for every measured event that matches a
/// predicted bar of that panel: same op, device and lane; x from the bar's own time mapping.
void addMeasuredOutlines(Scene& scene, int panel, const Timeline& predicted, const Timeline& measured);

} // namespace stagecraft::gui
