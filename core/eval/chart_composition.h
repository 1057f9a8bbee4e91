#pragma once
// The one chart composition of an evaluation, for the window, its exports, `stagecraft --export`
// and `stagecraft-cli export` alike: every shown schedule stacked on one shared time
// axis (one Scene from core's layoutGantt), each with its cost assumptions line under it, and a
// measured trace drawn either as outlines over the predicted bars of its schedule or as its own
// rows, each device's measured row under its predicted one (ChartSettings::measuredRows). The
// screen and every export format draw this same Scene.

#include "eval/evaluation.h"
#include "layout/compared_rows.h"
#include "layout/gantt_layout.h"
#include "layout/scene.h"
#include "sim/overlay.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace stagecraft {

/// How a measured trace is drawn with its prediction: outlines over the predicted bars, or each
/// device's measured row directly under its predicted row (compared_rows.h).
enum class MeasuredRows : std::uint8_t { Overlaid, UnderPredicted };

/// "overlaid", "under-predicted": the CLI's --rows values and the app's saved setting.
const char* measuredRowsName(MeasuredRows rows);
std::optional<MeasuredRows> parseMeasuredRows(std::string_view name);

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
    bool overlay = true;                                ///< draw the measured trace, when there is one
    MeasuredRows measuredRows = MeasuredRows::Overlaid; ///< how it is drawn
    bool tooltips = true; ///< tooltip strings on the bars (the screen builds its own on hover)
    /// A figure of a time range: the axis from timeStart to timeEnd (µs, or units at unit costs),
    /// bars cut at both ends. 0 and 0: the whole iteration; timeEnd 0: to the end.
    double timeStart = 0;
    double timeEnd = 0;
    friend bool operator==(const ChartSettings&, const ChartSettings&) = default;
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

/// The request reduced to the schedules named in `names` (registered ones by name, imported ones
/// by file name; every schedule when `names` is empty), for a chart of a subset of them.
void keepSchedules(AnalysisRequest& request, const std::vector<std::string>& names);

/// The panels of a chart and what they point to besides the result.
struct ChartComposition {
    std::vector<ChartPanel> panels; ///< one per outcome, in order: panel i is outcome i
    /// The measured schedule's paired rows (MeasuredRows::UnderPredicted with a matched trace):
    /// the timeline of panel `comparedPanel`. Null otherwise.
    std::unique_ptr<ComparedRows> compared;
    int comparedPanel = -1;
};

/// The panels of the chart of `result`: one per outcome, with the measured trace of the
/// overlay's schedule, when `settings.overlay`, drawn as `settings.measuredRows` says. They point
/// into `result` (and the composition's own paired rows); linear in events.
ChartComposition composeChart(const AnalysisResult& result, const ChartSettings& settings);

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
