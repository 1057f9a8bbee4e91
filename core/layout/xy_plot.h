#pragma once
// Line and scatter plots as a Scene: a framed plot area with x and y axes (linear, or base-2
// logarithmic for batch sizes), tick labels, grid lines, axis titles, one polyline and/or markers
// per series and a legend, in a palette's colours and sizes. The search's charts (efficiency
// against batch size per GPU, throughput against memory with the Pareto front) are built on it;
// markers carry an id and a tooltip so a front end can hit-test them.

#include "layout/palette.h"
#include "layout/scene.h"

#include <string>
#include <vector>

namespace stagecraft {

struct PlotPoint {
    double x = 0, y = 0;
    int id = -1;         ///< written to the marker's SceneRect::event (e.g. a search result index)
    std::string tooltip; ///< the marker's tooltip
};

struct PlotSeries {
    std::string name; ///< legend text ("" = not in the legend)
    std::vector<PlotPoint> points;
    int colorIndex = 0; ///< into plotSeriesColor
    bool line = true;   ///< join the points in order
    bool markers = true;
    bool dashed = false;
    double lineWidth = 1.2;
    double markerSize = 3.5; ///< side of the square marker, pt
    bool hollowMarkers = false;
};

struct PlotAxis {
    std::string title;
    bool log2 = false; ///< ticks at powers of two (values must be positive)
    /// Range; when min >= max it is taken from the data (padded; linear axes start at 0 when the
    /// data are all positive and `fromZero`).
    double min = 0, max = 0;
    bool fromZero = true;
    double labelScale = 1; ///< tick labels show value × labelScale (e.g. 100 for percent)
};

struct PlotOptions {
    std::string title;
    PlotAxis x, y;
    double widthPt = 320, heightPt = 240;
    bool legend = true;
    std::string markerKind = "point"; ///< SceneRect::kind of the markers
};

/// The colour of series `index` in `palette` (its bar colours, then its sync and transfer colours).
Color plotSeriesColor(const Palette& palette, int index);

/// Draws one plot into `scene` with its top-left corner at (left, top); `panel` goes into every
/// marker's SceneRect::panel. Grows the scene's width and height to hold it. Throws
/// ValidationError "chart.width" for a size too small for the axes.
void appendXyPlot(Scene& scene, const std::vector<PlotSeries>& series, const PlotOptions& options,
                  const Palette& palette, double left, double top, int panel);

/// A scene of one plot on the palette's background.
Scene layoutXyPlot(const std::vector<PlotSeries>& series, const PlotOptions& options, const Palette& palette);

/// An empty scene for plots: the palette's font and a background rect (scene.rects.front()) to
/// size once the plots are placed.
Scene plotScene(const Palette& palette);

/// Tick values of an axis range: 1-2-5 steps for linear axes (about `target` ticks), powers of
/// two for log2 axes.
std::vector<double> plotTicks(double min, double max, bool log2, int target = 5);

} // namespace stagecraft
