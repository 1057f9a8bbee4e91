// The line/scatter plot Scene builder: ticks, the mapping of values to points, markers that carry
// their ids, and the legend.
#include "error.h"
#include "layout/palette.h"
#include "layout/svg_writer.h"
#include "layout/xy_plot.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

TEST_CASE("plot ticks: powers of two on log2 axes, 1-2-5 steps on linear ones", "[xy_plot]") {
    CHECK(plotTicks(0.25, 16, true) == std::vector<double>{0.25, 0.5, 1, 2, 4, 8, 16});
    CHECK(plotTicks(0, 50, false) == std::vector<double>{0, 10, 20, 30, 40, 50});
    CHECK(plotTicks(0, 1, false, 5) == std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1.0});
    CHECK(plotTicks(1, 1, false).empty());
    CHECK(plotTicks(-1, 4, true).empty());
}

TEST_CASE("an XY plot puts markers where their values are, with ids and tooltips", "[xy_plot]") {
    const Palette& palette = findPalette("paper");
    PlotSeries a;
    a.name = "a";
    a.points = {{1, 10, 7, "seven"}, {4, 40, 8, "eight"}};
    PlotSeries b;
    b.name = "b";
    b.colorIndex = 1;
    b.line = false;
    b.hollowMarkers = true;
    b.points = {{2, 20, 9, "nine"}};
    PlotOptions o;
    o.x.log2 = true;
    o.x.title = "x";
    o.y.title = "y";
    const Scene scene = layoutXyPlot({a, b}, o, palette);
    CHECK(scene.width == o.widthPt);
    CHECK(scene.height == o.heightPt);
    std::vector<const SceneRect*> markers;
    for (const SceneRect& r : scene.rects)
        if (r.kind == "point") markers.push_back(&r);
    REQUIRE(markers.size() == 3);
    CHECK(markers[0]->event == 7);
    CHECK(markers[1]->event == 8);
    CHECK(markers[2]->event == 9);
    CHECK(markers[2]->tooltip == "nine");
    // Larger values lie right and up; on the log2 axis 2 is halfway between 1 and 4.
    const auto cx = [](const SceneRect* r) { return r->x + r->w / 2; };
    const auto cy = [](const SceneRect* r) { return r->y + r->h / 2; };
    CHECK(cx(markers[1]) > cx(markers[0]));
    CHECK(cy(markers[1]) < cy(markers[0]));
    CHECK(cx(markers[2]) == Approx((cx(markers[0]) + cx(markers[1])) / 2));
    // Both series are in the legend; the SVG carries them.
    const std::string svg = sceneToSvg(scene);
    CHECK(svg.find(">a<") != std::string::npos);
    CHECK(svg.find(">b<") != std::string::npos);
    PlotOptions tiny = o;
    tiny.widthPt = 60;
    CHECK_THROWS_AS(layoutXyPlot({a}, tiny, palette), ValidationError);
}
