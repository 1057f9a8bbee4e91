#pragma once
// The frame of a Gantt chart: everything but the bars. The plot's horizontal extent, each
// panel's header and device rows, the time axis and the legend, placed from the number of rows,
// the titles and the palette, never from the ops. layoutGantt (the full Scene of the exports)
// and the windowed chart (chart_rows.h, what the screen paints) both put their bars on this one
// frame through the append functions below, so a chart on screen at fit and its export match.
//
// Two steps: scanChart reads the panels once (linear in events: rows, makespans, what the legend
// lists), layoutChartFrame places everything for one width (linear in rows and legend entries).

#include "layout/chart_common.h"
#include "layout/palette.h"
#include "layout/scene.h"
#include "layout/time_mapping.h"
#include "sim/timeline.h"

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace stagecraft {

/// One panel as scanned: its rows, makespan and resolved header.
struct ChartPanelContent {
    const Timeline* timeline = nullptr;
    int rows = 0;                       ///< device rows (the shape's devices, or the highest device + 1)
    double makespan = 0;                ///< latest end of a drawable event
    std::string title;                  ///< the panel's title, or the schedule name
    std::string subtitle;               ///< the panel's subtitle, or timelineSummary
    std::vector<std::string> rowLabels; ///< the panel's row names, or empty for "D0", "D1" ...
    /// Rows that belong together (a device's predicted and measured rows: 2), set apart from the
    /// next group by a wider gap; 1 for evenly spaced rows.
    int rowGroup = 1;
};

/// What occurs in the chart, for the legend.
struct ChartLegendContent {
    std::array<std::array<bool, kOpKindCount>, 2> kind{}; ///< [pipe][kind] of drawn compute events
    int chunks = 1;                                       ///< most chunks per pipe of any panel
    std::array<bool, 4> comm{};                           ///< by CommKind, drawn comm events only
    bool idle = false;                                    ///< some device is idle before its makespan
    bool split = false;                                   ///< a panel splits backward into B and W
    bool unsplit = false;                                 ///< a panel does not
    bool overlapSlots = false;                            ///< a panel has F&B slots (DualPipe)
};

struct ChartContent {
    std::vector<ChartPanelContent> panels;
    int maxRows = 1;      ///< most rows of any panel (at least 1): sizes the row labels
    double timeEnd = 1;   ///< right end of the axis
    double timeStart = 0; ///< left end of the axis (ChartOptions::timeStart)
    bool showComm = false;
    ChartLegendContent legend;
};

/// Checks the options and panels as layoutGantt documents (palette, panels, width range,
/// timeEnd, devices) and scans every panel: linear in events.
ChartContent scanChart(std::span<const ChartPanel> panels, const ChartOptions& options);

/// One device row of one panel.
struct ChartFrameRow {
    int panel = 0;
    int device = 0;
    double y = 0;     ///< top of the compute bars (height ChartFrame::rowHeight)
    double commY = 0; ///< top of the comm lane (height ChartFrame::commHeight) when showComm
};

struct ChartFramePanel {
    double top = 0;                     ///< y of the first row
    double bottom = 0;                  ///< y below the last row's lanes
    int firstRow = 0;                   ///< index of its device 0 in ChartFrame::rows
    int rows = 0;                       ///< device rows
    std::vector<std::string> rowLabels; ///< as ChartPanelContent's
    double makespan = 0;                ///< the idle background of its rows ends here
    std::vector<SceneText> header;      ///< title, subtitle (possibly wrapped)
};

struct ChartFrame {
    double width = 0, height = 0; ///< points
    const Palette* palette = nullptr;
    std::string fontFamily;
    bool showComm = false, labels = true, axis = true;
    double minLabelSize = 3.5; ///< ChartOptions::minLabelSize
    TimeUnit timeUnit = TimeUnit::Microseconds;
    double plotLeft = 0;  ///< x of time 0 at fit
    double plotWidth = 0; ///< x extent of [0, timeEnd] at fit
    double timeEnd = 1;
    double timeStart = 0; ///< left end of the axis: 0 but in a figure of a time range
    double rowHeight = 0, commHeight = 0;
    TimeAxis axisAtFit;               ///< the axis of [0, timeEnd]; its unit is the chart's at every zoom
    int maxTicks = 1;                 ///< tick intervals across the plot
    double axisY = 0;                 ///< y of the axis line (when axis)
    std::vector<SceneText> axisTexts; ///< the axis title (when axis)
    std::vector<ChartFramePanel> panels;
    std::vector<ChartFrameRow> rows; ///< panel by panel, device by device: y increasing
    std::vector<SceneRect> legendRects;
    std::vector<SceneText> legendTexts;

    /// timeStart (0) at plotLeft, timeEnd at plotLeft + plotWidth: the export's mapping.
    TimeMapping fitMapping() const;
    /// Index into `rows` of the row whose compute bars (lane 0) or comm lane (lane 1) span y, or
    /// -1. Logarithmic in rows.
    int rowAt(double y, int& lane) const;
    /// Top and height of a lane (0 compute, 1 comm) of a row.
    double laneTop(int row, int lane) const;
    double laneHeight(int lane) const { return lane == 0 ? rowHeight : commHeight; }
};

/// Places the frame for `options.widthPt`. Throws ValidationError "chart.width" when the width
/// is out of range or leaves no room for the plot.
ChartFrame layoutChartFrame(const ChartContent& content, const ChartOptions& options);

/// The chart's background rect (RectRole::Background), `height` tall.
SceneRect chartBackground(const ChartFrame& frame);

/// Panel p's header texts and row labels.
void appendPanelDecor(Scene& scene, const ChartFrame& frame, std::size_t panel);

/// The idle background (RectRole::Idle) of every row of panel p, from time 0 to its makespan.
void appendIdleRows(Scene& scene, const ChartFrame& frame, std::size_t panel, const TimeMapping& mapping);

/// The axis under the panels: its line across the plot, the ticks and labels of the times in
/// [t0, t1] (at fit, when [t0, t1] covers [0, timeEnd], exactly axisAtFit's), and its title.
/// Ticks are spaced for the window; their unit stays the chart's.
void appendAxis(Scene& scene, const ChartFrame& frame, const TimeMapping& mapping, double t0, double t1);

/// The legend swatches and texts.
void appendLegend(Scene& scene, const ChartFrame& frame);

/// x of time t under `mapping`, with t clamped to the axis [0, timeEnd] as every bar is.
double chartX(const ChartFrame& frame, const TimeMapping& mapping, double t);

/// The bar of event `k` of panel `panel` (a drawn event, isDrawnChartEvent): a compute op's rect
/// and its label when one fits, or a thin rect in the comm lane. `tooltip`: also its tooltip
/// string (slow: exports only).
void appendEventBar(Scene& scene, const ChartFrame& frame, const Timeline& timeline, int panel, std::size_t k,
                    const TimeMapping& mapping, bool tooltip);

/// The outline of measured event `m` over the bar of predicted event `k` (both indices checked
/// by the caller): at the measured times less `alignOffset`, not clamped to the axis, half a
/// point around the bar's lane.
void appendMeasuredOutline(Scene& scene, const ChartFrame& frame, const Timeline& predicted, int panel,
                           std::size_t k, const TimelineEvent& m, double alignOffset,
                           const TimeMapping& mapping);

/// `kind` of the frame drawn around an overlapped forward-backward slot (ir/overlap.h).
inline constexpr char kOverlapSlotKind[] = "overlap";

/// The smallest size, in points, a bar's label shrinks to before the bar goes without one in a
/// figure for print (ChartOptions::minLabelSize's default); a view on screen keeps labels of at
/// least kMinScreenLabelPt, below which a screen cannot show them legibly.
inline constexpr double kMinLabelPt = 3.5;
inline constexpr double kMinScreenLabelPt = 5.5;

/// One overlapped forward-backward slot of a timeline (ir/overlap.h): its device, the time from
/// its forward's start to its backward's end, and the forward's event index.
struct OverlapSlot {
    int device = 0;
    double start = 0, end = 0;
    std::size_t event = 0;
};

/// The overlapped slots of `timeline` (shape.overlapped) in event order: heads whose events are
/// in the timeline and followed by their backward on the same device. Linear in events.
std::vector<OverlapSlot> overlapSlots(const Timeline& timeline);

/// The frame around one slot on panel `panel`: the slot's ops are drawn as their own bars side
/// by side (F, then the backward); this rect, with no fill and a heavier stroke, spans them all so
/// the slot reads as one bar split in parts. Drawn in the text colour (the bars' own white
/// strokes would hide it). Nothing for a device beyond the panel's rows or a slot outside
/// [0, timeEnd].
void appendOverlapFrame(Scene& scene, const ChartFrame& frame, int panel, const OverlapSlot& slot,
                        const TimeMapping& mapping);

/// The frames of every overlapped slot of `timeline` (exports; views use ChartRows).
void appendOverlapFrames(Scene& scene, const ChartFrame& frame, const Timeline& timeline, int panel,
                         const TimeMapping& mapping);

/// The outline rect of a measured span [start, end] (already aligned) on a lane of `frame`.
SceneRect measuredOutlineRect(const ChartFrame& frame, int row, int lane, double start, double end, int panel,
                              int event, const TimeMapping& mapping);

} // namespace stagecraft
