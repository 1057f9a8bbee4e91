// The view state every interactive chart keeps (core's ChartView): the Qt chart and the ImGui
// viewer both hold one, so they fit, zoom, pan and name an op the same way. Table-driven over a
// frame whose numbers are exact in binary floating point.
#include "layout/chart_frame.h"
#include "layout/chart_view.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace stagecraft;

namespace {

/// A plot 800 points wide from x = 100, showing [0, 400] µs at fit: 2 points per µs.
ChartFrame frame() {
    ChartFrame f;
    f.plotLeft = 100;
    f.plotWidth = 800;
    f.timeEnd = 400;
    return f;
}

} // namespace

TEST_CASE("A chart view starts at fit, with the one zoom range of every front end", "[layout][chart_view]") {
    ChartView v;
    v.setFrame(frame());
    CHECK(v.zoom() == 1.0);
    CHECK(v.mapping().pxPerUs == 2);
    CHECK(v.mapping().xOffset == 100);
    CHECK(v.mapping().originTime == 0);
    CHECK(v.mapping().minPxPerUs == 2);
    CHECK(v.mapping().maxPxPerUs == 2 * kChartMaxZoom);
    CHECK(kChartMaxZoom == 1048576.0);
    CHECK(v.visibleSpan() == 400);
}

TEST_CASE("Zoom about a point, clamped to the range; fit; pan", "[layout][chart_view]") {
    struct Row {
        const char* name;
        double anchorX, factor;
        double zoom, origin; ///< after
    };
    const Row rows[] = {
        {"x2 about the left edge", 100, 2, 2, 0},
        {"x2 about the middle", 500, 2, 2, 100},
        {"x4 about the right edge", 900, 4, 4, 300},
        {"out past fit stops at fit", 500, 0.25, 1, 0},
        {"in past the deepest stops there", 100, 1e9, kChartMaxZoom, 0},
    };
    for (const Row& r : rows) {
        INFO(r.name);
        ChartView v;
        v.setFrame(frame());
        CHECK(v.zoomAbout(r.anchorX, r.factor));
        CHECK(v.zoom() == r.zoom);
        CHECK(v.mapping().originTime == r.origin);
    }
    ChartView v;
    v.setFrame(frame());
    CHECK_FALSE(v.zoomAbout(500, 0));
    CHECK_FALSE(v.zoomAbout(500, std::numeric_limits<double>::infinity()));
    CHECK_FALSE(v.zoomAbout(std::numeric_limits<double>::quiet_NaN(), 2));
    CHECK(v.zoom() == 1.0);
    v.zoomAbout(100, 4); // [0, 100] shown
    v.pan(-200);         // content left by 200 points = 25 µs at 8 points per µs
    CHECK(v.mapping().originTime == 25);
    v.pan(1000); // past the start: clamped to 0
    CHECK(v.mapping().originTime == 0);
    v.pan(-1e9); // past the end: the last 100 µs
    CHECK(v.mapping().originTime == 300);
    v.fit();
    CHECK(v.zoom() == 1.0);
    CHECK(v.mapping().originTime == 0);
}

TEST_CASE("A span fills the plot; a resize keeps the zoom and the left edge", "[layout][chart_view]") {
    ChartView v;
    v.setFrame(frame());
    v.showSpan(100, 200);
    CHECK(v.zoom() == 4);
    CHECK(v.mapping().originTime == 100);
    CHECK(v.visibleSpan() == 100);
    v.showSpan(5, 5); // empty: ignored
    CHECK(v.zoom() == 4);
    v.setLeftTime(350); // clamped: the last 100 µs
    CHECK(v.mapping().originTime == 300);

    ChartFrame wider = frame();
    wider.plotWidth = 1600; // 4 points per µs at fit
    v.setFrame(wider, 4, 120);
    CHECK(v.zoom() == 4);
    CHECK(v.mapping().pxPerUs == 16);
    CHECK(v.mapping().originTime == 120);
    v.setFrame(wider); // a new chart: fit
    CHECK(v.zoom() == 1.0);
    v.clear();
    CHECK(v.zoom() == 1.0);
}

TEST_CASE("A hover names an event the same way in every front end", "[layout][chart_view]") {
    TimelineEvent e;
    e.op = Op{OpKind::F, 0, 0, 2, 0}; // stage 2, micro-batch 0
    TimelineShape split, whole;
    split.splitBackward = true;
    CHECK(eventTitle(e, split) == "2F0");
    e.op.kind = OpKind::B;
    CHECK(eventTitle(e, split) == "2I0");
    CHECK(eventTitle(e, whole) == "2B0");
    e.lane = Lane::Comm;
    e.comm = CommKind::Activation;
    e.op.kind = OpKind::F;
    CHECK(eventTitle(e, split) == "Send activation of 2F0");
    e.comm = CommKind::Gradient;
    e.op.kind = OpKind::B;
    CHECK(eventTitle(e, whole) == "Send gradient of 2B0");

    // The whole hover text: title and device (a transfer's peer), then the times in the chart's
    // units, as the app's chart and the viewer show it.
    e.device = 2;
    e.peer = 1;
    e.start = 1200;
    e.end = 3450;
    CHECK(eventHoverText(e, whole, false) ==
          "Send gradient of 2B0 · device 2 → 1\nstart 1.2 ms · end 3.45 ms · duration 2.25 ms");
    e.lane = Lane::Compute;
    e.peer = -1;
    e.start = 12;
    e.end = 14.5;
    CHECK(eventHoverText(e, split, true) ==
          "2I0 · device 2\nstart 12 units · end 14.5 units · duration 2.5 units");
    CHECK(eventTimesText(e, true) == "start 12 units · end 14.5 units · duration 2.5 units");

    // A sequence-sliced timeline names the slice: unit 7 of k = 2 is micro-batch 3, slice 1.
    TimelineShape sliced;
    sliced.sequenceSlices = 2;
    e.op = Op{OpKind::F, 0, 0, 2, 7};
    CHECK(eventTitle(e, sliced) == "2F3.1");
    CHECK(eventHoverText(e, sliced, true).rfind("2F3.1 · device 2\n", 0) == 0);
}
