#pragma once
// The one chart composition of an evaluation, for the window, its exports, `stagecraft --export`
// and `stagecraft-cli export` alike: every shown schedule stacked on one shared time
// axis (one Scene from core's layoutGantt), each with its cost assumptions line under it, and a
// measured trace drawn as outlines over the predicted bars of its schedule. The screen and every
// export format draw this same Scene.

#include "eval/evaluation.h"
#include "layout/gantt_layout.h"
#include "layout/scene.h"
#include "sim/overlay.h"

#include <string>

namespace stagecraft {

/// Figure widths of two-column papers (about 3.3 in and 6.9 in): what a single- and a
/// double-column figure is exported at.
inline constexpr double kSingleColumnPt = 240;
inline constexpr double kDoubleColumnPt = 500;

struct ChartSettings {
    std::string palette = "paper"; ///< paper, slides, colorblind, greyscale
    bool showComm = false;
    bool legend = true;
    bool axis = true;
    bool labels = true;
    bool title = true;    ///< panel titles
    bool subtitle = true; ///< key figures beside each title
    bool costLine = true; ///< the cost assumptions under the chart
    /// The papers' step grids: the schedules timed with unit costs (F = B = W = 1, no
    /// communication) whatever the project's costs, with a line at every unit. Front ends apply
    /// it to the request with `applyUnitTime` before they analyse.
    bool unitTime = false;
    bool overlay = true;  ///< draw the measured trace, when there is one
    bool tooltips = true; ///< tooltip strings on the bars (the screen builds its own on hover)
};

/// `kind` of the outline rects core draws for measured events (role Op, no fill).
inline constexpr const char* kMeasuredKind = kMeasuredOutlineKind;

/// True for a rect that stands for one predicted event (a bar to hover and click).
bool isEventBar(const SceneRect& rect);

/// The chart of `result` at `widthPt` points wide, with the cost assumptions under it. Empty
/// scene (0 x 0) when nothing is shown. Throws ValidationError from the layout (bad width or
/// palette).
Scene buildChartScene(const AnalysisResult& result, const ChartSettings& settings, double widthPt);

/// The request timed in unit costs, for `ChartSettings::unitTime`; a measured trace (in µs) is
/// dropped, since it cannot be drawn on a unit axis.
void applyUnitTime(AnalysisRequest& request);

/// The panels of the chart of `result`: one per outcome, with the measured trace over its
/// schedule when `settings.overlay`. They point into `result`.
std::vector<ChartPanel> chartPanels(const AnalysisResult& result, const ChartSettings& settings);

/// The layout options `settings` ask for at `widthPt` (palette, lanes, legend, axis, labels,
/// titles, step grid, tooltips), before anything an evaluation adds.
ChartOptions layoutOptions(const ChartSettings& settings, double widthPt);

/// The layout options of that chart at `widthPt` (the axis reaches the measured end too).
ChartOptions chartOptions(const AnalysisResult& result, const ChartSettings& settings, double widthPt);

/// The notes under the chart: the measured overlay's key, then the cost assumptions. Grows
/// `scene` (its height and background) by their lines. The screen adds them to its frame, the
/// exports to the whole Scene.
void appendChartNotes(Scene& scene, const AnalysisResult& result, const ChartSettings& settings);

} // namespace stagecraft
