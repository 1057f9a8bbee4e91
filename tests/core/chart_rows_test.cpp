// The windowed chart model: rows and tracks built once, exact hits at bar edges, folds, empty
// rows, overlapping comm lanes, and the visible items of a window against the full Scene that
// layoutGantt lays out for the exports.
#include "error.h"
#include "generators/registry.h"
#include "layout/chart_frame.h"
#include "layout/chart_rows.h"
#include "layout/error_colors.h"
#include "layout/gantt_layout.h"
#include "sim/list_scheduler.h"
#include "sim/overlay.h"
#include "sim/simulator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

using namespace stagecraft;

namespace {

TimelineEvent compute(int device, OpKind kind, int mb, double start, double end) {
    TimelineEvent e;
    e.op.kind = kind;
    e.op.mb = mb;
    e.op.stage = device;
    e.device = device;
    e.start = start;
    e.end = end;
    return e;
}

TimelineEvent comm(int device, CommKind kind, int mb, double start, double end) {
    TimelineEvent e = compute(device, kind == CommKind::Gradient ? OpKind::B : OpKind::F, mb, start, end);
    e.lane = Lane::Comm;
    e.comm = kind;
    e.peer = device + 1;
    return e;
}

/// Three devices; device 2 has no events. Event indices are noted for the checks below.
Timeline handMade() {
    Timeline t;
    t.shape.schedule = "hand";
    t.shape.devices = 3;
    t.shape.stagesPerPipe = 3;
    t.shape.microbatches = 3;
    t.events = {
        compute(0, OpKind::F, 0, 0, 10),          // 0
        compute(0, OpKind::B, 0, 10, 30),         // 1: touches 0
        compute(0, OpKind::F, 1, 40, 40.2),       // 2: narrow at 10 x units per µs
        compute(0, OpKind::F, 2, 50, 60),         // 3
        compute(1, OpKind::F, 0, 20, 30),         // 4: device 1 out of time order
        compute(1, OpKind::F, 1, 0, 5),           // 5
        comm(0, CommKind::Activation, 0, 5, 15),  // 6: four overlapping transfers
        comm(0, CommKind::Gradient, 0, 8, 12),    // 7
        comm(0, CommKind::Activation, 1, 12, 20), // 8
        comm(0, CommKind::Activation, 2, 15, 25), // 9
        compute(1, OpKind::F, 2, std::numeric_limits<double>::quiet_NaN(), 3), // 10: not drawn
        compute(0, OpKind::W, 0, 70, 70),                                      // 11: zero length, not drawn
        compute(1, OpKind::B, 0, 150, 160), // 12: after the axis end, not drawn
    };
    return t;
}

struct Chart {
    std::vector<ChartPanel> panels;
    ChartOptions options;
    ChartContent content;
    ChartFrame frame;
    ChartRows rows;
};

Chart chartOf(std::vector<ChartPanel> panels, bool showComm, double timeEnd = 0, double width = 500) {
    Chart c;
    c.panels = std::move(panels);
    c.options.timeUnit = TimeUnit::Units;
    c.options.showComm = showComm;
    c.options.timeEnd = timeEnd;
    c.options.widthPt = width;
    c.content = scanChart(c.panels, c.options);
    c.frame = layoutChartFrame(c.content, c.options);
    c.rows = ChartRows(c.panels, c.content);
    return c;
}

/// y in the middle of a lane (0 compute, 1 comm) of a device row of panel 0.
double laneMid(const ChartFrame& f, int device, int lane = 0) {
    return f.laneTop(device, lane) + f.laneHeight(lane) / 2;
}

int hitEvent(const Chart& c, const TimeMapping& m, double x, double y, double minWidth = 3) {
    const auto hit = c.rows.eventAt(c.frame, m, x, y, minWidth);
    return hit ? hit->event : -1;
}

} // namespace

TEST_CASE("Chart rows: one row per drawn lane, tracks only where events overlap", "[layout][chartrows]") {
    const Timeline t = handMade();
    const Chart withComm = chartOf({{&t, "", ""}}, true, 100);
    // Drawn: 0-5 compute and 6-9 comm; not the NaN, zero-length or late ones.
    CHECK(withComm.rows.eventCount() == 10);
    // Rows: D0 compute, D0 comm, D1 compute. D2 has none.
    CHECK(withComm.rows.rowCount() == 3);
    CHECK(withComm.rows.tracksOf(0, 0) == 1);
    CHECK(withComm.rows.tracksOf(0, 1) == 2); // [5,15] [15,25] and [8,12] [12,20]
    CHECK(withComm.rows.tracksOf(1, 0) == 1);
    CHECK(withComm.rows.tracksOf(2, 0) == 0);
    CHECK(withComm.rows.trackCount() == 4);

    const Chart noComm = chartOf({{&t, "", ""}}, false, 100);
    CHECK(noComm.rows.eventCount() == 6);
    CHECK(noComm.rows.rowCount() == 2);
    CHECK(noComm.rows.tracksOf(0, 1) == 0);

    // A chart the rows were not built for is refused.
    const Chart other = chartOf({{&t, "", ""}, {&t, "", ""}}, false, 100);
    CHECK_THROWS_WITH(noComm.rows.eventAt(other.frame, other.frame.fitMapping(), 0, 0, 3),
                      "[chart.panels] the chart frame was laid out for other panels than the chart's rows");
    const std::vector<ChartPanel> one{{&t, "", ""}};
    CHECK_THROWS_AS(ChartRows(one, other.content), ValidationError);
}

TEST_CASE("Chart rows: the event under a point, exactly at bar edges", "[layout][chartrows]") {
    const Timeline t = handMade();
    const Chart c = chartOf({{&t, "", ""}}, true, 100);
    const TimeMapping m = TimeMapping::fit(0, 100, 0, 1000); // x = 10 t
    const double d0 = laneMid(c.frame, 0), d1 = laneMid(c.frame, 1), d2 = laneMid(c.frame, 2);
    struct Row {
        const char* name;
        double x, y;
        int event;
    };
    const Row rows[] = {
        {"inside F0", 50, d0, 0},
        {"F0's left edge", 0, d0, 0},
        {"F0 | B0: the later bar", 100, d0, 1},
        {"just before the shared edge", 99.9, d0, 0},
        {"B0's right edge", 300, d0, 1},
        {"after B0, a gap", 301, d0, -1},
        // F1 is 2 x units wide, narrower than 3: hit within 1.5 of its edges (398.5 .. 403.5).
        {"narrow F1, inside", 401, d0, 2},
        {"narrow F1, within the slack left", 398.6, d0, 2},
        {"narrow F1, beyond the slack left", 398.4, d0, -1},
        {"narrow F1, within the slack right", 403.4, d0, 2},
        {"narrow F1, beyond the slack right", 403.6, d0, -1},
        {"F2's right edge", 600, d0, 3},
        {"D1 sorted by start", 25, d1, 5},
        {"D1's later event", 250, d1, 4},
        {"D1 between its events", 100, d1, -1},
        {"empty row D2", 50, d2, -1},
        {"left of the plot", -5, d0, -1},
        {"top of a row", 50, c.frame.rows[0].y, 0},
        {"bottom of a row", 50, c.frame.rows[0].y + c.frame.rowHeight, 0},
        {"between rows", 50, c.frame.rows[1].y - 1, -1},
        {"between a bar and its comm lane", 50, c.frame.rows[0].y + c.frame.rowHeight + 0.5, -1},
        {"above the chart", 50, -10, -1},
        // Overlapping comm lane: tracks [5,15] [15,25] and [8,12] [12,20]; the higher one wins.
        {"comm: one transfer", 60, laneMid(c.frame, 0, 1), 6},
        {"comm: two overlap, the later track", 100, laneMid(c.frame, 0, 1), 7},
        {"comm: 12 is both 7's end and 8's start", 120, laneMid(c.frame, 0, 1), 8},
        {"comm: 8 over 9", 160, laneMid(c.frame, 0, 1), 8},
        {"comm: only 9", 220, laneMid(c.frame, 0, 1), 9},
        {"comm: after all", 260, laneMid(c.frame, 0, 1), -1},
    };
    for (const Row& r : rows) {
        INFO(r.name << " at " << r.x << ", " << r.y);
        CHECK(hitEvent(c, m, r.x, r.y) == r.event);
    }
    // Without a minimum width nothing has slack.
    CHECK(hitEvent(c, m, 398.6, d0, 0) == -1);
    // Zoomed out so F0 is 1 unit wide: within 1.5 of it counts, and B0 (2 wide) wins at 1.
    const TimeMapping far = TimeMapping::fit(0, 1000, 0, 100); // x = t / 10
    CHECK(hitEvent(c, far, -1.4, d0) == 0);
    CHECK(hitEvent(c, far, -1.6, d0) == -1);
    CHECK(hitEvent(c, far, 1, d0) == 1);
    // Comm lanes are not hit when not drawn.
    const Chart noComm = chartOf({{&t, "", ""}}, false, 100);
    CHECK(hitEvent(noComm, m, 60, laneMid(c.frame, 0, 1)) == -1);
}

TEST_CASE("Chart rows: the box of an event", "[layout][chartrows]") {
    const Timeline t = handMade();
    const Chart c = chartOf({{&t, "", ""}}, true, 100);
    const TimeMapping m = TimeMapping::fit(0, 100, 20, 1000);
    const auto b0 = c.rows.eventBox(c.frame, m, 0, 1);
    REQUIRE(b0);
    CHECK(b0->x == 120);
    CHECK(b0->w == 200);
    CHECK(b0->y == c.frame.rows[0].y);
    CHECK(b0->h == c.frame.rowHeight);
    const auto tr = c.rows.eventBox(c.frame, m, 0, 7);
    REQUIRE(tr);
    CHECK(tr->x == 100);
    CHECK(tr->y == c.frame.rows[0].commY);
    CHECK(tr->h == c.frame.commHeight);
    CHECK_FALSE(c.rows.eventBox(c.frame, m, 0, 10)); // NaN start
    CHECK_FALSE(c.rows.eventBox(c.frame, m, 0, 12)); // after the axis
    CHECK_FALSE(c.rows.eventBox(c.frame, m, 0, 99));
    CHECK_FALSE(c.rows.eventBox(c.frame, m, 1, 0));
    const Chart noComm = chartOf({{&t, "", ""}}, false, 100);
    CHECK_FALSE(noComm.rows.eventBox(noComm.frame, m, 0, 7));
}

TEST_CASE("Chart rows: visible items fold narrow runs into counted boxes", "[layout][chartrows]") {
    const Timeline t = handMade();
    const Chart c = chartOf({{&t, "", ""}}, false, 100);
    ChartWindow w;
    w.x0 = 0;
    w.x1 = 1000;
    w.y0 = 0;
    w.y1 = c.frame.height;

    // 10 px per µs: F1 (2 px) folds alone, the rest is drawn as it is.
    w.mapping = TimeMapping::fit(0, 100, 0, 1000);
    Scene near;
    ChartWindowStats s = c.rows.appendVisible(near, c.frame, w);
    CHECK(s.bars == 5);
    CHECK(s.folds == 1);
    CHECK(s.folded == 1);
    std::vector<const SceneRect*> folds;
    for (const SceneRect& r : near.rects)
        if (r.kind == kFoldedKind) folds.push_back(&r);
    REQUIRE(folds.size() == 1);
    CHECK(folds[0]->x == 400);
    CHECK(folds[0]->w == Approx(2));
    CHECK(folds[0]->tooltip == "1 ops");
    CHECK(folds[0]->event == -1);
    // Idle backgrounds of the three rows come first.
    CHECK(std::count_if(near.rects.begin(), near.rects.end(),
                        [](const SceneRect& r) { return r.role == RectRole::Idle; }) == 3);

    // 0.1 px per µs: D0's F0, B0, F1, F2 are 1, 2, 0.02 and 1 px with gaps under 3 px: one fold
    // of four; D1's two events are 0.5 and 1 px wide with a 1.5 px gap: one fold of two.
    w.mapping = TimeMapping::fit(0, 1000, 0, 100);
    Scene far;
    s = c.rows.appendVisible(far, c.frame, w);
    CHECK(s.bars == 0);
    CHECK(s.folds == 2);
    CHECK(s.folded == 6);
    folds.clear();
    for (const SceneRect& r : far.rects)
        if (r.kind == kFoldedKind) folds.push_back(&r);
    REQUIRE(folds.size() == 2);
    CHECK(folds[0]->tooltip == "4 ops");
    CHECK(folds[0]->x == 0);
    CHECK(folds[0]->w == Approx(6));
    CHECK(folds[0]->y == c.frame.rows[0].y);
    CHECK(folds[1]->tooltip == "2 ops");
    CHECK(folds[1]->y == c.frame.rows[1].y);

    // A window on D1 only (by y) and on 20..35 µs (by x) draws just event 4.
    w.mapping = TimeMapping::fit(0, 100, 0, 1000);
    w.x0 = 200;
    w.x1 = 350;
    w.y0 = c.frame.rows[1].y;
    w.y1 = c.frame.rows[1].y + 1;
    Scene narrow;
    s = c.rows.appendVisible(narrow, c.frame, w);
    CHECK(s.bars == 1);
    CHECK(s.folds == 0);
    int bars = 0;
    for (const SceneRect& r : narrow.rects)
        if (r.event >= 0) {
            ++bars;
            CHECK(r.event == 4);
        }
    CHECK(bars == 1);
}

namespace {

Timeline simulated(std::string_view name, int p, int m, int v, double comm) {
    const Schedule s = generateSchedule(name, {p, m, v});
    return simulate(s, fullStageCosts(s, 1, 2, 1, comm, 0.5));
}

using RectKey = std::tuple<int, int, int, double, double, double, double>;

RectKey keyOf(const SceneRect& r) {
    return {r.panel, r.event, int(r.role), r.x, r.y, r.w, r.h};
}

} // namespace

TEST_CASE("Chart rows at fit draw exactly the export's bars, labels and outlines", "[layout][chartrows]") {
    const Timeline a = simulated("1f1b", 4, 8, 1, 0.25);
    const Timeline b = simulated("interleaved", 4, 8, 2, 0.1);
    Timeline measured = a;
    measured.origin = "measured";
    for (TimelineEvent& e : measured.events) e.start *= 1.1, e.end *= 1.1;
    const OverlayReport overlay = compareTimelines(a, measured);
    for (bool showComm : {false, true}) {
        INFO("showComm " << showComm);
        std::vector<ChartPanel> panels{{&a, "", ""}, {&b, "", ""}};
        panels[0].measured = &measured;
        panels[0].overlay = &overlay;
        const Chart c = chartOf(panels, showComm, measured.makespan(), 900);
        ChartOptions options = c.options;
        options.tooltips = false;
        const Scene full = layoutGantt(c.panels, options);

        // The whole chart at fit, nothing folded.
        ChartWindow w;
        w.mapping = c.frame.fitMapping();
        w.x0 = 0;
        w.x1 = c.frame.width;
        w.y1 = c.frame.height;
        w.minPx = 1e-9;
        Scene windowed;
        const ChartWindowStats stats = c.rows.appendVisible(windowed, c.frame, w);
        CHECK(stats.folds == 0);

        std::multiset<RectKey> fullRects, windowRects;
        for (const SceneRect& r : full.rects)
            if (r.role != RectRole::Background && r.role != RectRole::Legend) fullRects.insert(keyOf(r));
        for (const SceneRect& r : windowed.rects) windowRects.insert(keyOf(r));
        CHECK(windowRects.size() == fullRects.size());
        CHECK(windowRects == fullRects);
        CHECK(stats.outlines > 0);
        CHECK(stats.bars + stats.outlines ==
              std::size_t(std::count_if(full.rects.begin(), full.rects.end(),
                                        [](const SceneRect& r) { return r.event >= 0; })));

        // Labels: the bar labels of the export are the windowed ones.
        std::multiset<std::tuple<double, double, std::string>> fullLabels, windowLabels;
        for (const SceneText& t : full.texts)
            if (t.anchor == TextAnchor::Middle && t.size == c.frame.palette->labelSize)
                fullLabels.insert({t.x, t.y, t.text});
        for (const SceneText& t : windowed.texts) windowLabels.insert({t.x, t.y, t.text});
        CHECK(!windowLabels.empty());
        CHECK(windowLabels == fullLabels);
    }
}

TEST_CASE("Chart rows frame the F&B slots of DualPipe as the exports do, and not inside folds",
          "[layout][chartrows]") {
    for (const char* name : {"dualpipev", "dualpipe"}) {
        INFO(name);
        const Timeline t = simulated(name, 4, 16, 1, 0.1);
        REQUIRE(!t.shape.overlapped.empty());
        const Chart c = chartOf({{&t, "", ""}}, false, 0, 1400);
        ChartOptions options = c.options;
        options.tooltips = false;
        const Scene full = layoutGantt(c.panels, options);
        auto framesIn = [](const Scene& scene) {
            std::multiset<RectKey> frames;
            for (const SceneRect& r : scene.rects)
                if (r.kind == kOverlapSlotKind) frames.insert(keyOf(r));
            return frames;
        };
        REQUIRE(framesIn(full).size() == t.shape.overlapped.size());

        ChartWindow w;
        w.mapping = c.frame.fitMapping();
        w.x0 = 0;
        w.x1 = c.frame.width;
        w.y1 = c.frame.height;
        w.minPx = 1e-9;
        Scene windowed;
        c.rows.appendVisible(windowed, c.frame, w);
        CHECK(framesIn(windowed) == framesIn(full));

        // A window over the middle third shows only the slots it crosses.
        const double t0 = t.makespan() / 3, t1 = 2 * t.makespan() / 3;
        w.x0 = w.mapping.timeToX(t0);
        w.x1 = w.mapping.timeToX(t1);
        Scene middle;
        c.rows.appendVisible(middle, c.frame, w);
        const std::vector<OverlapSlot> slots = overlapSlots(t);
        const auto crossing = std::count_if(
            slots.begin(), slots.end(), [&](const OverlapSlot& o) { return o.end >= t0 && o.start <= t1; });
        CHECK(crossing > 0);
        CHECK(std::ptrdiff_t(framesIn(middle).size()) == crossing);

        // Zoomed out until slots are narrower than two fold widths: no frame over the folds.
        w.x0 = 0;
        w.x1 = c.frame.width;
        w.minPx = 1e6;
        Scene folded;
        const ChartWindowStats stats = c.rows.appendVisible(folded, c.frame, w);
        CHECK(stats.folds > 0);
        CHECK(framesIn(folded).empty());
    }
}

TEST_CASE("Chart rows: hit-testing agrees with a linear search over the export's bars",
          "[layout][chartrows]") {
    const Timeline t = simulated("zb-h1", 8, 32, 1, 0.3);
    const Chart c = chartOf({{&t, "", ""}}, true, 0, 1200);
    ChartOptions options = c.options;
    options.tooltips = false;
    const Scene full = layoutGantt(c.panels, options);
    for (double zoom : {1.0, 7.0, 60.0}) {
        const TimeMapping m = c.frame.fitMapping().zoomedAbout(c.frame.plotLeft + 300, zoom);
        const double minWidth = 3;
        // The brute force: every bar of the export at this zoom; among those hit, the latest
        // start on compute lanes. Comm lanes overlap; any hit bar that covers x is right there.
        std::uint64_t state = 7;
        auto uniform = [&state] {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return double(state >> 11) / double(1ULL << 53);
        };
        int hits = 0;
        for (int i = 0; i < 4000; ++i) {
            const double x = c.frame.plotLeft + uniform() * c.frame.plotWidth;
            const double y = uniform() * c.frame.height;
            std::vector<int> candidates;
            double latest = -1;
            int best = -1;
            for (const SceneRect& r : full.rects) {
                if (r.event < 0 || (r.role != RectRole::Op && r.role != RectRole::Comm)) continue;
                const TimelineEvent& e = t.events[std::size_t(r.event)];
                const double bx = m.timeToX(std::clamp(e.start, 0.0, c.frame.timeEnd));
                const double bw = m.timeToX(std::clamp(e.end, 0.0, c.frame.timeEnd)) - bx;
                const double slack = bw < minWidth ? minWidth / 2 : 0;
                if (x < bx - slack || x > bx + bw + slack || y < r.y || y > r.y + r.h) continue;
                candidates.push_back(r.event);
                if (e.start > latest) latest = e.start, best = r.event;
            }
            const auto hit = c.rows.eventAt(c.frame, m, x, y, minWidth);
            INFO("zoom " << zoom << " x " << x << " y " << y);
            if (candidates.empty()) {
                CHECK_FALSE(hit);
                continue;
            }
            REQUIRE(hit);
            ++hits;
            const TimelineEvent& e = t.events[std::size_t(hit->event)];
            if (e.lane == Lane::Compute)
                CHECK(hit->event == best);
            else
                CHECK(std::find(candidates.begin(), candidates.end(), hit->event) != candidates.end());
        }
        CHECK(hits > 200);
    }
}

TEST_CASE("A folded view shows the mix of kinds and the idle time in every row", "[layout][chartrows]") {
    // pp=8, m=256: at fit in 500 pt every op is narrower than the fold threshold, so every row
    // is folds; they must still show each device's busy time by kind and its bubbles.
    const Timeline t = simulated("1f1b", 8, 256, 1, 0.5);
    const Chart c = chartOf({{&t, "", ""}}, false);
    ChartWindow w;
    w.x0 = c.frame.plotLeft;
    w.x1 = c.frame.plotLeft + c.frame.plotWidth;
    w.y0 = 0;
    w.y1 = c.frame.height;
    w.mapping = TimeMapping::fit(0, c.frame.timeEnd, c.frame.plotLeft, c.frame.plotWidth);
    Scene scene;
    const ChartWindowStats stats = c.rows.appendVisible(scene, c.frame, w);
    CHECK(stats.bars == 0);
    REQUIRE(stats.folds >= 8);
    const double rowH = c.frame.laneHeight(0);
    for (int d = 0; d < 8; ++d) {
        INFO("device " << d);
        const double top = c.frame.laneTop(d, 0);
        std::array<double, 3> truth{}, drawn{};
        for (const TimelineEvent& e : t.events)
            if (e.lane == Lane::Compute && e.device == d && isComputeKind(e.op.kind))
                truth[std::size_t(e.op.kind == OpKind::F   ? 0
                                  : e.op.kind == OpKind::B ? 1
                                                           : 2)] += e.duration();
        double foldTime = 0;
        for (const SceneRect& r : scene.rects) {
            if (r.y < top - 1e-9 || r.y + r.h > top + rowH + 1e-9) continue;
            const double time = r.w / w.mapping.pxPerUs;
            if (r.kind == kFoldedKind) foldTime += time;
            if (r.kind != kFoldMixKind) continue;
            const int k = r.fill == opColor(findPalette("paper"), OpKind::F, 0, 0, 1)   ? 0
                          : r.fill == opColor(findPalette("paper"), OpKind::B, 0, 0, 1) ? 1
                                                                                        : 2;
            drawn[std::size_t(k)] += time * r.h / rowH;
        }
        // Each kind's drawn share is its busy time, to half a device pixel of height per column.
        const double quantum = 0.5 / (rowH * w.pixelsPerUnit) * foldTime;
        for (int k = 0; k < 2; ++k)
            CHECK(std::abs(drawn[std::size_t(k)] - truth[std::size_t(k)]) <=
                  quantum + 0.01 * truth[std::size_t(k)]);
        // And the idle time inside the folds shows: the row is not one solid box.
        const double idleInFolds = foldTime - (drawn[0] + drawn[1] + drawn[2]);
        CHECK(idleInFolds > 0.01 * c.frame.timeEnd);
    }
}

TEST_CASE("Measured outlines are coloured by the op's duration error, on screen and in exports",
          "[layout][chartrows]") {
    const Timeline a = simulated("1f1b", 4, 8, 1, 0);
    Timeline measured = a;
    measured.origin = "measured";
    // Device 1's ops take twice as long, device 2's half; the rest as predicted.
    for (TimelineEvent& e : measured.events) {
        if (e.device == 1) e.end = e.start + 2 * e.duration();
        if (e.device == 2) e.end = e.start + 0.5 * e.duration();
    }
    const OverlayReport overlay = compareTimelines(a, measured);
    std::vector<ChartPanel> panels{{&a, "", ""}};
    panels[0].measured = &measured;
    panels[0].overlay = &overlay;
    const Chart c = chartOf(panels, false, 0, 2000);
    ChartWindow w;
    w.x0 = 0;
    w.x1 = 2000;
    w.y0 = 0;
    w.y1 = c.frame.height;
    w.mapping = TimeMapping::fit(0, c.frame.timeEnd, c.frame.plotLeft, c.frame.plotWidth);
    Scene windowed;
    c.rows.appendVisible(windowed, c.frame, w);
    const Scene exported = layoutGantt(panels, c.options);
    for (const Scene* scene : {static_cast<const Scene*>(&windowed), &exported}) {
        int slower = 0, faster = 0, neutral = 0;
        for (const SceneRect& r : scene->rects) {
            if (r.kind != kMeasuredOutlineKind || r.event < 0) continue;
            const TimelineEvent& e = a.events[std::size_t(r.event)];
            if (e.lane != Lane::Compute) continue;
            const Color expected = e.device == 1   ? durationErrorColor(1, 2)
                                   : e.device == 2 ? durationErrorColor(1, 0.5)
                                                   : durationErrorColor(1, 1);
            CHECK(r.stroke == expected);
            (e.device == 1 ? slower : e.device == 2 ? faster : neutral) += 1;
        }
        CHECK(slower > 0);
        CHECK(faster > 0);
        CHECK(neutral > 0);
    }
    CHECK(durationErrorColor(1, 2).r > durationErrorColor(1, 2).b);     // red for slower
    CHECK(durationErrorColor(1, 0.5).b > durationErrorColor(1, 0.5).r); // blue for faster
}
