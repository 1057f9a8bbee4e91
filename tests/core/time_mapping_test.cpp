// The time mapping of interactive charts, table-driven as hotspot tests its
// TimeLineData::mapTimeToX: each row is a mapping, a question and the exact answer.
#include "error.h"
#include "layout/time_mapping.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace stagecraft;

namespace {

TimeMapping mapping(double origin, double offset, double scale, double minScale = 0,
                    double maxScale = std::numeric_limits<double>::infinity()) {
    TimeMapping m;
    m.originTime = origin;
    m.xOffset = offset;
    m.pxPerUs = scale;
    m.minPxPerUs = minScale;
    m.maxPxPerUs = maxScale;
    return m;
}

} // namespace

TEST_CASE("Time to x and back", "[layout][mapping]") {
    struct Row {
        const char* name;
        TimeMapping m;
        double t, x;
    };
    // Values chosen so that every product and sum is exact in binary floating point.
    const Row rows[] = {
        {"identity", mapping(0, 0, 1), 5, 5},
        {"offset only", mapping(0, 40, 1), 5, 45},
        {"scale only", mapping(0, 0, 0.5), 6, 3},
        {"origin later", mapping(100, 40, 2), 125, 90},
        {"time before the origin", mapping(100, 40, 2), 90, 20},
        {"left of the offset", mapping(100, 40, 2), 50, -60},
        {"deep zoom", mapping(1'000'000, 0, 1024), 1'000'000.5, 512},
        {"far out", mapping(0, 10, 0.0078125), 1'048'576, 8202},
    };
    for (const Row& r : rows) {
        INFO(r.name);
        CHECK(r.m.timeToX(r.t) == r.x);
        CHECK(r.m.xToTime(r.x) == r.t);
    }
}

TEST_CASE("Fit maps a time range onto a width", "[layout][mapping]") {
    struct Row {
        double t0, t1, x0, width;
        double scale;
    };
    const Row rows[] = {
        {0, 100, 40, 400, 4},
        {0, 3, 0, 1.5, 0.5},
        {50, 150, 10, 25, 0.25},
        {-8, 8, 0, 64, 4},
    };
    for (const Row& r : rows) {
        INFO(r.t0 << ".." << r.t1 << " on " << r.x0 << "+" << r.width);
        const TimeMapping m = TimeMapping::fit(r.t0, r.t1, r.x0, r.width);
        CHECK(m.pxPerUs == r.scale);
        CHECK(m.timeToX(r.t0) == r.x0);
        CHECK(m.timeToX(r.t1) == r.x0 + r.width);
    }
    CHECK_THROWS_WITH(
        TimeMapping::fit(5, 5, 0, 100),
        "[chart.mapping] cannot fit times 5..5 into width 100: the times must be increasing and "
        "the width positive");
    CHECK_THROWS_AS(TimeMapping::fit(0, 1, 0, 0), ValidationError);
    CHECK_THROWS_AS(TimeMapping::fit(0, std::numeric_limits<double>::infinity(), 0, 10), ValidationError);
    CHECK_THROWS_AS(TimeMapping::fit(0, 1, std::numeric_limits<double>::quiet_NaN(), 10), ValidationError);
}

TEST_CASE("Zoom about a point keeps the time under it and clamps the scale", "[layout][mapping]") {
    struct Row {
        const char* name;
        TimeMapping m;
        double anchorX, factor;
        double scale, origin; ///< expected
    };
    const Row rows[] = {
        // 0..100 µs on x 0..400 (4 px/µs). Zoom 2x about x = 200 (t = 50): 25..75 on 0..400.
        {"in about the middle", mapping(0, 0, 4), 200, 2, 8, 25},
        {"in about the left edge", mapping(0, 0, 4), 0, 2, 8, 0},
        {"in about the right edge", mapping(0, 0, 4), 400, 2, 8, 50},
        {"out about the middle", mapping(25, 0, 8), 200, 0.5, 4, 0},
        {"offset kept", mapping(10, 40, 1), 140, 4, 4, 85},
        {"clamped at the maximum", mapping(0, 0, 4, 1, 16), 200, 8, 16, 37.5},
        {"clamped at the minimum", mapping(0, 0, 4, 1, 16), 200, 0.125, 1, -150},
        {"at the limit: unchanged", mapping(20, 0, 16, 1, 16), 100, 2, 16, 20},
        {"factor 1", mapping(3, 0, 2), 7, 1, 2, 3},
    };
    for (const Row& r : rows) {
        INFO(r.name);
        const TimeMapping z = r.m.zoomedAbout(r.anchorX, r.factor);
        CHECK(z.pxPerUs == r.scale);
        CHECK(z.originTime == r.origin);
        CHECK(z.xOffset == r.m.xOffset);
        CHECK(z.xToTime(r.anchorX) == Approx(r.m.xToTime(r.anchorX)).epsilon(1e-12));
        CHECK(z.minPxPerUs == r.m.minPxPerUs);
        CHECK(z.maxPxPerUs == r.m.maxPxPerUs);
    }
    CHECK_THROWS_WITH(
        mapping(0, 0, 1).zoomedAbout(10, 0),
        "[chart.mapping] zoom factor 0 about x 10: the factor must be positive and both finite");
    CHECK_THROWS_AS(mapping(0, 0, 1).zoomedAbout(10, -2), ValidationError);
    CHECK_THROWS_AS(mapping(0, 0, 1).zoomedAbout(10, std::numeric_limits<double>::infinity()),
                    ValidationError);
    CHECK_THROWS_AS(mapping(0, 0, 1).zoomedAbout(std::numeric_limits<double>::quiet_NaN(), 2),
                    ValidationError);
}

TEST_CASE("Zooming in and out again returns to the same mapping", "[layout][mapping]") {
    const TimeMapping m = mapping(12.5, 30, 3);
    for (double anchor : {0.0, 30.0, 170.0, 1000.0}) {
        const TimeMapping back = m.zoomedAbout(anchor, 1.5625).zoomedAbout(anchor, 0.64);
        CHECK(back.pxPerUs == Approx(m.pxPerUs).epsilon(1e-14));
        CHECK(back.originTime == Approx(m.originTime).epsilon(1e-12));
    }
}

TEST_CASE("Pan moves the content; clamping keeps the view on the range", "[layout][mapping]") {
    struct Row {
        const char* name;
        TimeMapping m;
        double dx;
        double origin; ///< after panning
        double clampT0, clampT1, width;
        double clamped; ///< origin after clamping
    };
    const Row rows[] = {
        // 2 px/µs, a 100 px view shows 50 µs.
        {"content right: earlier times", mapping(40, 0, 2), 20, 30, 0, 200, 100, 30},
        {"content left: later times", mapping(40, 0, 2), -20, 50, 0, 200, 100, 50},
        {"past the start", mapping(4, 0, 2), 20, -6, 0, 200, 100, 0},
        {"past the end", mapping(140, 0, 2), -40, 160, 0, 200, 100, 150},
        {"range shorter than the view", mapping(10, 0, 2), 0, 10, 0, 30, 100, 0},
        {"no move", mapping(7, 0, 2), 0, 7, 0, 200, 100, 7},
    };
    for (const Row& r : rows) {
        INFO(r.name);
        const TimeMapping p = r.m.panned(r.dx);
        CHECK(p.originTime == r.origin);
        CHECK(p.pxPerUs == r.m.pxPerUs);
        CHECK(p.clampedTo(r.clampT0, r.clampT1, r.width).originTime == r.clamped);
    }
}
