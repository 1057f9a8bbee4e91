#pragma once
// The horizontal mapping of a timeline view: time (µs, or units under unit costs) to x and back,
// and the zoom and pan steps of an interactive chart, as one small value type. x is in whatever
// unit the caller draws in (points for the Qt chart); nothing here knows about widgets. Pure
// geometry, so it is tested table-driven (tests/core/time_mapping_test.cpp), as hotspot tests
// its TimeLineData::mapTimeToX.

#include <limits>

namespace stagecraft {

struct TimeMapping {
    /// x = xOffset + (t - originTime) * pxPerUs.
    double originTime = 0; ///< the time shown at xOffset (the left edge of the plot)
    double xOffset = 0;    ///< x of originTime
    double pxPerUs = 1;    ///< scale: x units per µs (or per unit), > 0
    /// Range zoomAbout keeps pxPerUs in; fit sets pxPerUs without looking at it.
    double minPxPerUs = 0;
    double maxPxPerUs = std::numeric_limits<double>::infinity();

    double timeToX(double t) const { return xOffset + (t - originTime) * pxPerUs; }
    double xToTime(double x) const { return originTime + (x - xOffset) / pxPerUs; }

    /// t0 at x0 and t1 at x0 + width; zoom limits left at their defaults. Throws ValidationError
    /// "chart.mapping" unless t0 < t1 and width > 0, all finite.
    static TimeMapping fit(double t0, double t1, double x0, double width);

    /// Scale multiplied by `factor` (then clamped to [minPxPerUs, maxPxPerUs]) so that the time
    /// under `anchorX` stays under it; xOffset is kept. Throws ValidationError "chart.mapping"
    /// when factor is not positive and finite or anchorX is not finite.
    TimeMapping zoomedAbout(double anchorX, double factor) const;

    /// The content moved right by dx x units (the time under every x decreases by dx / pxPerUs).
    TimeMapping panned(double dx) const;

    /// originTime kept in [t0, max(t0, t1 - width / pxPerUs)]: a view `width` wide shows nothing
    /// before t0 and, when the range is longer than the view, nothing after t1.
    TimeMapping clampedTo(double t0, double t1, double width) const;
};

} // namespace stagecraft
