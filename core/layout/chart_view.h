#pragma once
// The view state of an interactive chart, kept once for every front end: the time mapping of a laid
// out ChartFrame with its zoom limits (fit is the widest, kChartMaxZoom times fit the deepest),
// fit, zoom about a point, pan, a resize that keeps the zoom and the left edge, a jump to a time
// span, and the name a hover shows for an event. The Qt chart (app/gui/gantt_view) and the ImGui
// viewer (app/view/timeline_view) hold one and keep only painting and input. A value type, tested
// table-driven (tests/core/chart_view_test.cpp), as hotspot tests its TimeLineData outside the
// widget; Tracy keeps the same state in one timeline context.

#include "layout/time_mapping.h"
#include "sim/timeline.h"

#include <string>

namespace stagecraft {

struct ChartFrame;

/// Deepest zoom relative to fit, in every front end.
inline constexpr double kChartMaxZoom = double(1 << 20);

class ChartView {
  public:
    ChartView() = default;

    /// A frame was laid out (a new chart, a resize): at fit, or at `zoom` relative to the new fit with
    /// `leftTime` at the left edge (both clamped). zoom <= 0 means fit.
    void setFrame(const ChartFrame& frame, double zoom = 0, double leftTime = 0);
    /// A chart with nothing to show: the identity mapping, zoom 1.
    void clear();

    const TimeMapping& mapping() const { return m_mapping; }
    /// The fit of the frame, with the zoom limits.
    const TimeMapping& fitMapping() const { return m_fit; }
    /// Zoom relative to fit: exactly 1 at fit.
    double zoom() const;
    /// The time span across the plot.
    double visibleSpan() const { return m_plotWidth / m_mapping.pxPerUs; }

    /// `m` made valid: the fit's x offset and limits, the scale clamped to them (within 1e-12 of
    /// fit is fit), the left edge clamped so nothing before 0 or after the end shows.
    void setMapping(TimeMapping m);
    void fit() { setMapping(m_fit); }
    /// Scale times `factor` keeping the time under `anchorX` still; false (and the view kept) when
    /// the factor or anchor is not positive and finite.
    bool zoomAbout(double anchorX, double factor);
    /// The content moved right by dx.
    void pan(double dx) { setMapping(m_mapping.panned(dx)); }
    /// [t0, t1] across the plot (a jump to an op, a dragged range); the scale clamped.
    void showSpan(double t0, double t1);
    /// The left edge at time `t`, the scale kept (a scroll bar).
    void setLeftTime(double t);

  private:
    TimeMapping m_mapping;
    TimeMapping m_fit;
    double m_timeEnd = 1;
    double m_plotWidth = 0;
};

/// What a hover shows first for an event, in every front end: the op's one name (opName), and for
/// a transfer what it carries ("Send activation of 2F0", "Gradient all-reduce 2SYNC"), named as
/// the timeline's `shape` names its ops (I or B; a sequence slice as "2F3.1").
std::string eventTitle(const TimelineEvent& event, const TimelineShape& shape);

/// What a hover says of an event, in every front end, two lines: its title and device
/// ("2F0 · device 1"; a transfer "Send activation of 2F0 · device 1 → 2"), then its times
/// ("start 1.2 ms · end 3.4 ms · duration 2.2 ms"; "units" under unit costs).
std::string eventHoverText(const TimelineEvent& event, const TimelineShape& shape, bool unitless);

/// The times line of eventHoverText alone (a counterpart's, after "measured: ").
std::string eventTimesText(const TimelineEvent& event, bool unitless);

} // namespace stagecraft
