#pragma once
// The chart layout engine: timelines -> Scene. Panels are stacked under one shared time axis
// (one scale for all, so schedules compare side by side); each panel has a header, one row per
// device with its compute ops as labelled bars, and optionally a thin comm lane per device. A
// legend lists only what occurs. Every renderer draws the resulting Scene.

#include "layout/scene.h"
#include "sim/overlay.h"
#include "sim/timeline.h"

#include <span>
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
    bool labels = true;   ///< op labels inside bars wide enough for them
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

/// The frame (headers, rows, axis, legend) is layoutChartFrame's (chart_frame.h), shared with the
/// windowed screen chart (chart_rows.h).
/// Throws ValidationError: "chart.panels" (none, or one without a timeline), "chart.width"
/// (width not in [100, 100000] pt or too narrow for the labels), "chart.time" (timeEnd or
/// timeStart negative or not finite, or timeStart not before the axis end), "chart.devices" (a device index
/// beyond 4096 rows), "chart.palette". Events with a negative device, non-finite or backward times, an
/// unknown kind, or zero length draw nothing. Linear in events.
Scene layoutGantt(std::span<const ChartPanel> panels, const ChartOptions& options);

/// Label of an op in a chart bar, from the timeline's shape alone (same text as opLabel of the
/// schedule): kind and micro-batch "F3", a chunk letter when a device holds several chunks of
/// one pipe "F3b", a prime for pipe 1 "F3'"; "S"/"O" (with the same marks) for sync and optimizer.
std::string chartOpLabel(const TimelineShape& shape, const Op& op);

/// Which of the `chunksPerPipe(shape)` chunks of its pipe an op belongs to (0-based).
int chunkInPipe(const TimelineShape& shape, const Op& op);
/// Chunks of one pipe per device: v for interleaved/V schedules, 1 for Chimera, 2 for BitPipe.
int chunksPerPipe(const TimelineShape& shape);

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

/// "12", "2.5", "0.125": up to `decimals` decimals, trailing zeros removed, never "-0".
std::string formatNumber(double value, int decimals = 3);
/// `value` with about `digits` significant digits and at most 3 decimals, trailing zeros dropped:
/// a makespan reads "380.3" (ms), "33", "1.235", never "380.259".
std::string formatSignificant(double value, int digits = 4);

/// A time for hover and side-panel text: "850 µs", "12.5 ms", "3.2 s" (a unit from 2 of it up),
/// or the bare number of units under unit costs.
std::string durationText(double us, bool unitless);

} // namespace stagecraft
