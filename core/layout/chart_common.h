#pragma once
// What every chart layout shares, below both the frame (chart_frame.h) and the full layout
// (gantt_layout.h): the panels and options of a chart, the time axis, op labels in bars, key
// figures and numbers as text. Its own header so that the frame does not include the layout that
// calls it (the loop chart_frame <-> gantt_layout).

#include "number_text.h" // formatNumber, formatSignificant: numbers as the charts show them
#include "sim/overlay.h"
#include "sim/timeline.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft {

struct ComparedRows; // layout/compared_rows.h

/// What the timeline's numbers are: microseconds (simulated with real costs or measured), or
/// unit costs (T_F = 1, as the papers' figures).
enum class TimeUnit : std::uint8_t { Microseconds, Units };

struct ChartPanel {
    const Timeline* timeline = nullptr;
    std::string title;    ///< empty: the schedule name of the timeline
    std::string subtitle; ///< empty: key figures (timelineSummary)
    /// A measured run of the same schedule, drawn as outlines over the bars it matches: both
    /// set, or neither. `overlay` (compareTimelines of timeline and measured) says which measured
    /// event is which bar; an outline spans the measured times less overlay->alignOffset.
    const Timeline* measured = nullptr;
    const OverlayReport* overlay = nullptr;
    /// The names of the rows, row d being device d of the timeline; empty: "D0", "D1" ... (a
    /// timeline that interleaves measured and predicted devices names them).
    std::vector<std::string> rowLabels = {};
    /// Set when `timeline` is `compared->timeline`, a prediction with its measured rows under it
    /// (compared_rows.h): rows are named by it (unless rowLabels are given) and bars' tooltips
    /// say both sides and their difference. `measured`/`overlay` stay unset then.
    const ComparedRows* compared = nullptr;
};

/// `kind` of the outline rects of measured events (role Op, no fill, red stroke).
inline constexpr char kMeasuredOutlineKind[] = "measured";

struct ChartOptions {
    std::string palette = "paper"; ///< a style name (findPalette)
    double widthPt = 500;
    bool showComm = false; ///< a thin lane per device with the transfers and collectives
    bool legend = true;
    bool axis = true;
    bool labels = true; ///< op labels inside bars wide enough for them
    /// The smallest size (pt) a label shrinks to in a narrow bar before the bar goes without one:
    /// kMinLabelPt in a figure for print; a screen view asks for more (what it can show legibly).
    double minLabelSize = 3.5;
    bool title = true;    ///< panel headers
    bool subtitle = true; ///< the key figures beside (or under) each panel title
    /// Thin vertical lines at every time unit, as the papers' step grids; drawn only in unit
    /// time and only while a unit is at least 3 pt wide.
    bool stepGrid = false;
    /// A tooltip string on every bar. Off for views that describe bars from their events
    /// themselves: building the strings is a large share of laying out a big chart.
    bool tooltips = true;
    double timeEnd = 0; ///< right end of the axis; 0 = the longest panel's makespan
    /// Left end of the axis (a figure of a time range, [timeStart, timeEnd]); 0 = from the start.
    /// Bars are cut at both ends.
    double timeStart = 0;
    TimeUnit timeUnit = TimeUnit::Microseconds;
};

/// Label of an op in a chart bar, from the timeline's shape alone (same text as opLabel of the
/// schedule): kind and micro-batch "F3", a chunk letter when a device holds several chunks of
/// one pipe "F3b", a prime for pipe 1 "F3'"; "S"/"O" (with the same marks) for sync and optimizer.
std::string chartOpLabel(const TimelineShape& shape, const Op& op);

/// Which of the `chunksPerPipe(shape)` chunks of its pipe an op belongs to (0-based).
int chunkInPipe(const TimelineShape& shape, const Op& op);
/// Chunks of one pipe per device: v for interleaved/V schedules, 1 for Chimera, 2 for BitPipe.
int chunksPerPipe(const TimelineShape& shape);

/// False for events a chart leaves out rather than guess at: a negative device, non-finite or
/// backward times, an unknown kind or comm kind (timelines read from files may hold anything).
bool isValidChartEvent(const TimelineEvent& e);

/// True for an event drawn on a panel of `rows` rows with the axis ending at `timeEnd` (and
/// starting at `timeStart`): valid, on a row, starting before the end and ending after the start,
/// not of zero length; a comm event only with showComm.
bool isDrawnChartEvent(const TimelineEvent& e, int rows, double timeEnd, bool showComm, double timeStart = 0);

/// Key figures of a timeline for panel subtitles: "p=4 · m=8 · makespan 33 · bubble 27.3%".
std::string timelineSummary(const Timeline& timeline, TimeUnit unit);

/// A time axis with "nice" ticks (steps of 1, 2 or 5 times a power of ten).
struct TimeAxis {
    double step = 1;           ///< in timeline units (µs or unit costs)
    double displayScale = 1;   ///< tick label = value / displayScale
    std::string unit;          ///< "µs", "ms", "s", or "" for unit costs
    std::vector<double> ticks; ///< 0, step, 2 step ... <= end
    std::vector<std::string> labels;
};

/// Ticks for [0, end] with at most `maxTicks` intervals. Microseconds switch to ms from 2 ms and
/// to s from 2 s. A non-positive or non-finite end is treated as 1.
TimeAxis niceTimeAxis(double end, int maxTicks, TimeUnit unit);

/// Ticks for the window [begin, end] of a chart whose axis ends at `chartEnd`: a step for the
/// window's span (at most `maxTicks` intervals), ticks at the step's multiples inside the window,
/// the display unit of the whole chart (so labels keep their unit while zooming). No ticks when
/// the window is empty or not finite; a non-positive or non-finite chartEnd is treated as 1.
TimeAxis windowTimeAxis(double begin, double end, int maxTicks, TimeUnit unit, double chartEnd);

} // namespace stagecraft
