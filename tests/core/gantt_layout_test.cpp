// The chart layout: one op rect per compute event at the x/width of its times and the row of
// its device, one time scale shared by all panels, labels only where they fit, a legend of
// what occurs, nice axis ticks, palettes, and the errors of bad options.
#include "error.h"
#include "generators/registry.h"
#include "ir/op_name.h"
#include "layout/chart_frame.h"
#include "layout/gantt_layout.h"
#include "layout/palette.h"
#include "layout/text_metrics.h"
#include "sim/simulator.h"
#include "text/text_gantt.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

using namespace stagecraft;

namespace {

struct Simulated {
    Schedule schedule;
    Timeline timeline;
};

Simulated simulated(std::string_view name, int p, int m, int v = 1, double comm = 0, double sync = 0) {
    Simulated s;
    s.schedule = generateSchedule(name, {p, m, v});
    s.timeline = simulate(s.schedule, fullStageCosts(s.schedule, 1, 1, 1, comm, sync));
    return s;
}

ChartOptions unitOptions() {
    ChartOptions o;
    o.timeUnit = TimeUnit::Units;
    return o;
}

std::vector<const SceneRect*> rectsOf(const Scene& scene, RectRole role, int panel = -2) {
    std::vector<const SceneRect*> out;
    for (const SceneRect& r : scene.rects)
        if (r.role == role && (panel == -2 || r.panel == panel)) out.push_back(&r);
    return out;
}

std::size_t computeEvents(const Timeline& t) {
    return std::size_t(std::count_if(t.events.begin(), t.events.end(),
                                     [](const TimelineEvent& e) { return e.lane == Lane::Compute; }));
}

std::set<std::string> texts(const Scene& scene) {
    std::set<std::string> out;
    for (const SceneText& t : scene.texts) out.insert(t.text);
    return out;
}

/// The label drawn centred on `r`, if any.
const SceneText* labelOn(const Scene& scene, const SceneRect& r) {
    for (const SceneText& t : scene.texts)
        if (t.anchor == TextAnchor::Middle && std::abs(t.x - (r.x + r.w / 2)) < 1e-9 && t.y > r.y &&
            t.y < r.y + r.h)
            return &t;
    return nullptr;
}

} // namespace

TEST_CASE("One op rect per compute event, at its times and on its device's row", "[layout]") {
    const Simulated s = simulated("1f1b", 4, 8);
    const std::vector<ChartPanel> panels{{&s.timeline, "1F1B", ""}};
    const Scene scene = layoutGantt(panels, unitOptions());

    const auto ops = rectsOf(scene, RectRole::Op);
    REQUIRE(ops.size() == computeEvents(s.timeline));
    REQUIRE(ops.size() == 64);
    const auto rows = rectsOf(scene, RectRole::Idle);
    REQUIRE(rows.size() == 4);
    // Rows from top to bottom, equally spaced, all starting at the plot's left edge.
    const double x0 = rows[0]->x;
    for (int d = 1; d < 4; ++d) {
        CHECK(rows[d]->x == x0);
        CHECK(rows[d]->y - rows[d - 1]->y == Approx(rows[1]->y - rows[0]->y));
        CHECK(rows[d]->y > rows[d - 1]->y);
    }
    const double scale = rows[0]->w / s.timeline.makespan(); // the idle row spans 0..makespan
    CHECK(s.timeline.makespan() == 33.0);
    std::set<int> seenEvents;
    for (const SceneRect* r : ops) {
        REQUIRE(r->event >= 0);
        const TimelineEvent& e = s.timeline.events[std::size_t(r->event)];
        CHECK(e.lane == Lane::Compute);
        CHECK(r->panel == 0);
        CHECK(r->x == Approx(x0 + e.start * scale));
        CHECK(r->w == Approx(e.duration() * scale));
        CHECK(r->y == rows[std::size_t(e.device)]->y);
        CHECK(r->h == rows[std::size_t(e.device)]->h);
        CHECK(r->kind == opKindName(e.op.kind));
        seenEvents.insert(r->event);
    }
    CHECK(seenEvents.size() == 64);
    // Row labels sit left of the plot, vertically inside their rows.
    for (int d = 0; d < 4; ++d) {
        const std::string name = "D" + std::to_string(d);
        const auto it = std::find_if(scene.texts.begin(), scene.texts.end(),
                                     [&](const SceneText& t) { return t.text == name; });
        REQUIRE(it != scene.texts.end());
        CHECK(it->anchor == TextAnchor::End);
        CHECK(it->x < x0);
        CHECK(it->y > rows[std::size_t(d)]->y);
        CHECK(it->y < rows[std::size_t(d)]->y + rows[std::size_t(d)]->h);
    }
    // The first op's tooltip names the op, the device and its times.
    CHECK(ops[0]->tooltip == "0F0 on D0: 0\u20131 (1)");
    CHECK(scene.width == 500);
    CHECK(scene.rects.front().role == RectRole::Background);
    CHECK(scene.rects.front().h == scene.height);
}

TEST_CASE("Panels share one time axis", "[layout]") {
    const Simulated a = simulated("1f1b", 4, 8);
    const Simulated b = simulated("zb-h1", 4, 8);
    REQUIRE(b.timeline.makespan() == 27.0);
    const std::vector<ChartPanel> panels{{&a.timeline, "1F1B", ""}, {&b.timeline, "ZB-H1", ""}};
    const Scene scene = layoutGantt(panels, unitOptions());

    const auto rowsA = rectsOf(scene, RectRole::Idle, 0);
    const auto rowsB = rectsOf(scene, RectRole::Idle, 1);
    REQUIRE(rowsA.size() == 4);
    REQUIRE(rowsB.size() == 4);
    CHECK(rowsA[0]->x == rowsB[0]->x);
    CHECK(rowsB[0]->y > rowsA[3]->y + rowsA[3]->h); // stacked below
    // Same scale: each panel's rows end at its own makespan.
    CHECK(rowsB[0]->w / rowsA[0]->w == Approx(27.0 / 33.0));
    // The first F of both panels is the same event at the same place.
    CHECK(rectsOf(scene, RectRole::Op, 1).size() == computeEvents(b.timeline));
    CHECK(rectsOf(scene, RectRole::Op, 0)[0]->x == rectsOf(scene, RectRole::Op, 1)[0]->x);
    CHECK(rectsOf(scene, RectRole::Op, 0)[0]->w == rectsOf(scene, RectRole::Op, 1)[0]->w);

    // A fixed time end changes the scale of every panel alike; the ticks follow it.
    ChartOptions wide = unitOptions();
    wide.timeEnd = 66;
    const Scene halved = layoutGantt(panels, wide);
    CHECK(rectsOf(halved, RectRole::Idle, 0)[0]->w == Approx(rowsA[0]->w * 0.5).epsilon(0.02));
    CHECK(texts(halved).count("60") == 1);
    CHECK(texts(scene).count("60") == 0);
    CHECK(texts(scene).count("30") == 1);
}

TEST_CASE("Op labels appear where they fit and nowhere else", "[layout]") {
    const Simulated s = simulated("1f1b", 4, 8);
    const std::vector<ChartPanel> panels{{&s.timeline, "", ""}};
    const Palette& pal = findPalette("paper");

    const Scene roomy = layoutGantt(panels, unitOptions());
    for (const SceneRect* r : rectsOf(roomy, RectRole::Op)) {
        const SceneText* label = labelOn(roomy, *r);
        REQUIRE(label != nullptr);
        const TimelineEvent& e = s.timeline.events[std::size_t(r->event)];
        CHECK(label->text == cellOpLabel(e.op));
        CHECK(label->size == pal.labelSize);
        CHECK(estimateTextWidth(label->text, label->size) < r->w);
    }

    ChartOptions narrow = unitOptions();
    narrow.widthPt = 100; // about 2.3 pt per unit: no label fits a forward box, even shrunk
    const Scene tight = layoutGantt(panels, narrow);
    REQUIRE(rectsOf(tight, RectRole::Op).size() == 64);
    for (const SceneRect* r : rectsOf(tight, RectRole::Op)) {
        const SceneText* label = labelOn(tight, *r);
        if (s.timeline.events[std::size_t(r->event)].op.kind == OpKind::F) CHECK(label == nullptr);
        // A wider (backward) box may hold its number shrunk, never below the smallest size.
        if (label) {
            CHECK(label->size >= kMinLabelPt);
            CHECK(estimateTextWidth(label->text, label->size) < r->w);
        }
    }

    // A view on screen keeps only labels it can show legibly (ChartOptions::minLabelSize): a
    // minimum above the smallest shrunk label drops that one and keeps the rest.
    CHECK(kMinScreenLabelPt > kMinLabelPt);
    double smallest = 1e9;
    std::size_t printLabels = 0, screenLabels = 0;
    for (const SceneRect* r : rectsOf(tight, RectRole::Op))
        if (const SceneText* label = labelOn(tight, *r)) {
            ++printLabels;
            smallest = std::min(smallest, label->size);
        }
    REQUIRE(printLabels > 0);
    ChartOptions screen = narrow;
    screen.minLabelSize = smallest + 0.01;
    const Scene onScreen = layoutGantt(panels, screen);
    for (const SceneRect* r : rectsOf(onScreen, RectRole::Op))
        if (const SceneText* label = labelOn(onScreen, *r)) {
            ++screenLabels;
            CHECK(label->size >= screen.minLabelSize);
        }
    CHECK(screenLabels < printLabels);

    ChartOptions off = unitOptions();
    off.labels = false;
    const Scene unlabelled = layoutGantt(panels, off);
    for (const SceneRect* r : rectsOf(unlabelled, RectRole::Op)) CHECK(labelOn(unlabelled, *r) == nullptr);

    // One convention whatever the width: the micro-batch number, never the kind or chunk letters
    // (colour and shade say those); a box too narrow for it has none.
    const Simulated inter = simulated("interleaved", 4, 8, 2);
    const std::vector<ChartPanel> interPanels{{&inter.timeline, "", ""}};
    for (double width : {500.0, 400.0, 300.0}) {
        ChartOptions options = unitOptions();
        options.widthPt = width;
        const Scene scene = layoutGantt(interPanels, options);
        for (const SceneRect* r : rectsOf(scene, RectRole::Op))
            if (const SceneText* label = labelOn(scene, *r)) {
                INFO(width << " pt: " << label->text);
                CHECK(label->text == cellOpLabel(inter.timeline.events[std::size_t(r->event)].op));
            }
    }
}

TEST_CASE("Every box that can hold it carries its micro-batch number, as the papers draw",
          "[layout][labels]") {
    // The papers' figures at p=4, m=8 under unit costs in a double-column figure (500 pt): every
    // compute box is numbered, the second pipe primed; nothing else is written in the boxes.
    for (const auto& [name, v] : std::vector<std::pair<std::string, int>>{
             {"1f1b", 1}, {"interleaved", 2}, {"zb-h1", 1}, {"zb-v", 2}, {"chimera", 1}, {"bitpipe", 1}}) {
        const Simulated s = simulated(name, 4, 8, v);
        const std::vector<ChartPanel> panels{{&s.timeline, "", ""}};
        const Scene scene = layoutGantt(panels, unitOptions());
        std::size_t labelled = 0, boxes = 0;
        for (const SceneRect* r : rectsOf(scene, RectRole::Op)) {
            const TimelineEvent& e = s.timeline.events[std::size_t(r->event)];
            if (e.op.mb < 0) continue;
            ++boxes;
            const SceneText* label = labelOn(scene, *r);
            if (!label) continue;
            ++labelled;
            INFO(name << ": " << opName(e.op, false));
            CHECK(label->text == std::to_string(e.op.mb) + (e.op.pipe > 0 ? "'" : ""));
        }
        INFO(name);
        CHECK(labelled == boxes);
    }
}

TEST_CASE("A single-column figure numbers every box of 1F1B, interleaved and ZB-H1 on one axis",
          "[layout][labels]") {
    // One time axis for the three, sized by 1F1B's 33 units: interleaved's half-unit chunk boxes
    // are about 3 pt wide, and still carry their number, in a smaller size.
    const Simulated one = simulated("1f1b", 4, 8), inter = simulated("interleaved", 4, 8, 2),
                    zb = simulated("zb-h1", 4, 8);
    const std::vector<ChartPanel> panels{
        {&one.timeline, "1F1B", ""}, {&inter.timeline, "Interleaved", ""}, {&zb.timeline, "ZB-H1", ""}};
    ChartOptions options = unitOptions();
    options.widthPt = 240; // kSingleColumnPt
    const Scene scene = layoutGantt(panels, options);
    const Palette& pal = findPalette("paper");
    std::size_t boxes = 0, shrunk = 0;
    for (const SceneRect* r : rectsOf(scene, RectRole::Op)) {
        const Timeline& t = r->panel == 0 ? one.timeline : r->panel == 1 ? inter.timeline : zb.timeline;
        const TimelineEvent& e = t.events[std::size_t(r->event)];
        if (e.op.mb < 0) continue;
        ++boxes;
        const SceneText* label = labelOn(scene, *r);
        INFO("panel " << r->panel << ": " << opName(e.op, false) << ", " << r->w << " pt wide");
        REQUIRE(label != nullptr);
        CHECK(label->text == cellOpLabel(e.op));
        CHECK(label->size >= kMinLabelPt);
        CHECK(label->size <= pal.labelSize);
        CHECK(estimateTextWidth(label->text, label->size) < r->w);
        if (label->size < pal.labelSize) ++shrunk;
    }
    CHECK(boxes == 64 + 128 + 96); // 2 boxes per micro-batch and stage, 4 per chunk, 3 with W
    CHECK(shrunk > 0);
}

TEST_CASE("chartOpLabel matches opLabel for every generator", "[layout]") {
    for (const auto& [name, v] : std::vector<std::pair<std::string, int>>{{"1f1b", 1},
                                                                          {"interleaved", 2},
                                                                          {"interleaved", 3},
                                                                          {"zb-v", 2},
                                                                          {"chimera", 1},
                                                                          {"bitpipe", 1},
                                                                          {"breadth-first", 2}}) {
        const Schedule s = generateSchedule(name, {4, 8, v});
        const TimelineShape shape = shapeOf(s);
        for (const auto& ops : s.order)
            for (const Op& op : ops) REQUIRE(chartOpLabel(shape, op) == opLabel(s, op));
    }
}

TEST_CASE("The legend lists only what occurs", "[layout]") {
    auto legendOf = [](const Timeline& t, bool comm = false) {
        const std::vector<ChartPanel> panels{{&t, "", ""}};
        ChartOptions o = unitOptions();
        o.showComm = comm;
        return texts(layoutGantt(panels, o));
    };
    const Simulated plain = simulated("1f1b", 4, 8);
    const auto basic = legendOf(plain.timeline);
    CHECK(basic.count("forward (F)") == 1);
    CHECK(basic.count("backward (B)") == 1);
    CHECK(basic.count("idle") == 1);
    for (const char* absent : {"weight gradient (W)", "input gradient (B)", "gradient sync (S)",
                               "optimizer (O)", "chunk a", "pipe 1 (')", "activation transfer"})
        CHECK(basic.count(absent) == 0);

    const auto zb = legendOf(simulated("zb-h1", 4, 8).timeline);
    CHECK(zb.count("weight gradient (W)") == 1);
    CHECK(zb.count("input gradient (B)") == 1);
    CHECK(zb.count("backward (B)") == 0);

    const auto chunks = legendOf(simulated("interleaved", 4, 8, 2).timeline);
    CHECK(chunks.count("chunk a") == 1);
    CHECK(chunks.count("chunk b") == 1);
    CHECK(chunks.count("chunk c") == 0);

    const auto pipes = legendOf(simulated("chimera", 4, 8).timeline);
    CHECK(pipes.count("pipe 0") == 1);
    CHECK(pipes.count("pipe 1 (')") == 1);
    CHECK(pipes.count("chunk a") == 0);

    // Transfers only with the comm lane shown, and only when they take time.
    const Simulated comm = simulated("1f1b", 4, 8, 1, 0.25);
    CHECK(legendOf(comm.timeline).count("activation transfer") == 0);
    const auto withComm = legendOf(comm.timeline, true);
    CHECK(withComm.count("activation transfer") == 1);
    CHECK(withComm.count("gradient transfer") == 1);
    CHECK(withComm.count("collective") == 0);
    CHECK(legendOf(plain.timeline, true).count("activation transfer") == 0); // zero-length transfers

    ChartOptions noLegend = unitOptions();
    noLegend.legend = false;
    const std::vector<ChartPanel> panels{{&plain.timeline, "", ""}};
    const Scene bare = layoutGantt(panels, noLegend);
    CHECK(rectsOf(bare, RectRole::Legend).empty());
    CHECK(texts(bare).count("idle") == 0);
    // One swatch per entry for kinds and idle: F, B, idle.
    CHECK(rectsOf(layoutGantt(panels, unitOptions()), RectRole::Legend).size() == 3);
}

TEST_CASE("The comm lane holds one rect per transfer, under its device's row", "[layout]") {
    const Simulated s = simulated("1f1b", 4, 8, 1, 0.25);
    const std::vector<ChartPanel> panels{{&s.timeline, "", ""}};
    ChartOptions o = unitOptions();
    o.showComm = true;
    const Scene scene = layoutGantt(panels, o);
    const auto comm = rectsOf(scene, RectRole::Comm);
    const std::size_t transfers = s.timeline.events.size() - computeEvents(s.timeline);
    REQUIRE(transfers == 48); // 3 links x 8 micro-batches x (activation + gradient)
    REQUIRE(comm.size() == transfers);
    const auto rows = rectsOf(scene, RectRole::Idle);
    for (const SceneRect* r : comm) {
        const TimelineEvent& e = s.timeline.events[std::size_t(r->event)];
        CHECK(e.lane == Lane::Comm);
        CHECK(r->y == Approx(rows[std::size_t(e.device)]->y + rows[std::size_t(e.device)]->h + 1));
        CHECK(r->h == findPalette("paper").commHeight);
        CHECK((r->kind == "activation" || r->kind == "gradient"));
    }
    CHECK(rectsOf(layoutGantt(panels, unitOptions()), RectRole::Comm).empty());
}

TEST_CASE("Panel headers: given titles, or the schedule name and its key figures", "[layout]") {
    const Simulated s = simulated("1f1b", 4, 8);
    CHECK(timelineSummary(s.timeline, TimeUnit::Units) ==
          "p=4 \u00B7 m=8 \u00B7 makespan 33 \u00B7 bubble 27.3%");
    CHECK(timelineSummary(s.timeline, TimeUnit::Microseconds) ==
          "p=4 \u00B7 m=8 \u00B7 makespan 33 \u00B5s \u00B7 bubble 27.3%");
    const Simulated v = simulated("interleaved", 4, 8, 2);
    CHECK(timelineSummary(v.timeline, TimeUnit::Units) ==
          "p=4 \u00B7 m=8 \u00B7 v=2 \u00B7 makespan 28.5 \u00B7 bubble 15.8%");

    const std::vector<ChartPanel> automatic{{&s.timeline, "", ""}};
    const auto autoTexts = texts(layoutGantt(automatic, unitOptions()));
    CHECK(autoTexts.count("1f1b") == 1);
    CHECK(autoTexts.count(timelineSummary(s.timeline, TimeUnit::Units)) == 1);
    const std::vector<ChartPanel> given{{&s.timeline, "Title", "sub"}};
    const auto givenTexts = texts(layoutGantt(given, unitOptions()));
    CHECK(givenTexts.count("Title") == 1);
    CHECK(givenTexts.count("sub") == 1);
    ChartOptions noTitle = unitOptions();
    noTitle.title = false;
    CHECK(texts(layoutGantt(given, noTitle)).count("Title") == 0);
}

TEST_CASE("A subtitle too long for the width wraps onto lines that fit", "[layout]") {
    const Simulated s = simulated("1f1b", 4, 8);
    std::string longText;
    for (int i = 0; i < 30; ++i) longText += "figure" + std::to_string(i) + " \u00B7 ";
    longText += "end";
    const std::vector<ChartPanel> panels{{&s.timeline, "Title", longText}};
    ChartOptions options = unitOptions();
    options.widthPt = 300;
    const Scene scene = layoutGantt(panels, options);
    std::string joined;
    int lines = 0;
    for (const SceneText& t : scene.texts)
        if (t.text.rfind("figure", 0) == 0 || t.text == "end" ||
            t.text.find("figure29") != std::string::npos) {
            CHECK(t.x + estimateTextWidth(t.text, t.size) <= options.widthPt);
            joined += (joined.empty() ? "" : " ") + t.text;
            ++lines;
        }
    CHECK(lines > 2);
    CHECK(joined == longText); // nothing lost or reordered
}

TEST_CASE("Nice axis ticks step by 1, 2 or 5 times a power of ten", "[layout]") {
    const TimeAxis units = niceTimeAxis(33, 8, TimeUnit::Units);
    CHECK(units.step == 5);
    CHECK(units.unit.empty());
    CHECK(units.labels == std::vector<std::string>{"0", "5", "10", "15", "20", "25", "30"});

    const TimeAxis us = niceTimeAxis(1520, 8, TimeUnit::Microseconds);
    CHECK(us.step == 200);
    CHECK(us.unit == "\u00B5s");
    CHECK(us.labels.back() == "1400");

    const TimeAxis ms = niceTimeAxis(15000, 6, TimeUnit::Microseconds);
    CHECK(ms.unit == "ms");
    CHECK(ms.step == 5000);
    CHECK(ms.labels == std::vector<std::string>{"0", "5", "10", "15"});
    CHECK(ms.ticks == std::vector<double>{0, 5000, 10000, 15000});

    const TimeAxis s = niceTimeAxis(4.2e6, 5, TimeUnit::Microseconds);
    CHECK(s.unit == "s");
    CHECK(s.labels == std::vector<std::string>{"0", "1", "2", "3", "4"});

    const TimeAxis small = niceTimeAxis(0.37, 4, TimeUnit::Units);
    CHECK(small.labels == std::vector<std::string>{"0", "0.1", "0.2", "0.3"});
    CHECK(niceTimeAxis(0, 4, TimeUnit::Units).labels.back() == "1");
    CHECK(niceTimeAxis(std::nan(""), 4, TimeUnit::Units).labels.back() == "1");

    CHECK(formatNumber(12.5) == "12.5");
    CHECK(formatNumber(-0.0001) == "0");
    CHECK(formatNumber(2.0 / 3.0, 2) == "0.67");
}

TEST_CASE("Palettes: lookup, shades for chunks, hues for pipes", "[layout]") {
    CHECK(findPalette("SLIDES").name == "slides");
    CHECK(palettes().size() == 4);
    try {
        findPalette("neon");
        FAIL("no throw");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "chart.palette");
        CHECK(e.message() ==
              "unknown chart style 'neon'; valid styles: paper, slides, colorblind, greyscale");
    }
    CHECK(findPalette("slides").fontSize > findPalette("paper").fontSize);
    CHECK(findPalette("slides").rowHeight > findPalette("paper").rowHeight);
    for (const Palette& pal : palettes()) {
        INFO(pal.name);
        std::set<std::tuple<int, int, int>> distinct;
        for (int pipe = 0; pipe < 2; ++pipe)
            for (OpKind kind : {OpKind::F, OpKind::B, OpKind::W}) {
                const Color c = opColor(pal, kind, pipe, 0, 1);
                distinct.insert({c.r, c.g, c.b});
                // Later chunks are lighter.
                const Color later = opColor(pal, kind, pipe, 1, 2);
                CHECK(later.r + later.g + later.b > c.r + c.g + c.b);
                CHECK(opColor(pal, kind, pipe, 0, 2) == c);
            }
        CHECK(distinct.size() == 6);
    }
    const Palette& paper = findPalette("paper");
    CHECK(opColor(paper, OpKind::F, 0, 0, 1) == Color{0x00, 0x72, 0xB2, 255}); // Okabe-Ito blue
    CHECK(opColor(paper, OpKind::F, 0, 1, 2) ==
          mixColor(Color{0x00, 0x72, 0xB2, 255}, {255, 255, 255, 255}, 0.55));
    CHECK(labelColorOn(paper, paper.compute[0][0]) == paper.lightLabel);
    CHECK(labelColorOn(paper, paper.compute[0][1]) == paper.darkLabel);
}

TEST_CASE("Bad chart input is refused with the rule, bad events are skipped", "[layout]") {
    const Simulated s = simulated("1f1b", 2, 2);
    const std::vector<ChartPanel> good{{&s.timeline, "", ""}};
    auto idOf = [](auto&& f) {
        try {
            f();
        } catch (const Error& e) {
            return e.id() + ": " + e.message();
        }
        return std::string("no error");
    };
    CHECK(idOf([] { layoutGantt({}, ChartOptions{}); }) ==
          "chart.panels: a chart needs at least one timeline");
    const std::vector<ChartPanel> null{{nullptr, "", ""}};
    CHECK(idOf([&] { layoutGantt(null, ChartOptions{}); }) == "chart.panels: panel has no timeline");
    ChartOptions o;
    o.widthPt = 50;
    CHECK(idOf([&] { layoutGantt(good, o); }) == "chart.width: chart width 50 pt is not in [100, 100000]");
    o.widthPt = std::nan("");
    CHECK(idOf([&] { layoutGantt(good, o); }) == "chart.width: chart width ? pt is not in [100, 100000]");
    o = {};
    o.timeEnd = -1;
    CHECK(idOf([&] { layoutGantt(good, o); }) == "chart.time: time end -1 must be finite and >= 0");
    o = {};
    o.palette = "x";
    CHECK(idOf([&] { layoutGantt(good, o); }).rfind("chart.palette: unknown chart style 'x'", 0) == 0);

    Timeline far = s.timeline;
    far.events.push_back({Op{}, 5000, -1, Lane::Compute, CommKind::None, 0, 1});
    const std::vector<ChartPanel> farPanels{{&far, "", ""}};
    CHECK(idOf([&] { layoutGantt(farPanels, ChartOptions{}); }) ==
          "chart.devices: event on device 5000 cannot be drawn: at most 4096 device rows");

    Timeline broken = s.timeline;
    const std::size_t before = computeEvents(broken);
    broken.events.push_back({Op{}, -1, -1, Lane::Compute, CommKind::None, 0, 1});
    broken.events.push_back({Op{}, 0, -1, Lane::Compute, CommKind::None, std::nan(""), 1});
    broken.events.push_back({Op{}, 0, -1, Lane::Compute, CommKind::None, 3, 2});
    broken.events.push_back({Op{OpKind(9), 0, 0, 0, 0}, 0, -1, Lane::Compute, CommKind::None, 0.5, 0.75});
    const std::vector<ChartPanel> brokenPanels{{&broken, "", ""}};
    const Scene scene = layoutGantt(brokenPanels, ChartOptions{});
    CHECK(rectsOf(scene, RectRole::Op).size() == before);
    CHECK(rectsOf(scene, RectRole::Idle).size() == 2);
}

TEST_CASE("durations read in the unit that suits them", "[gantt_layout]") {
    CHECK(durationText(850, false) == "850 \u00b5s");
    CHECK(durationText(12500, false) == "12.5 ms");
    CHECK(durationText(3.2e6, false) == "3.2 s");
    CHECK(durationText(1999, false) == "1.999 ms"); // a unit from 1 of it up, as everywhere
    CHECK(durationText(999.96, false) == "1 ms");   // the unit of the rounded value
    CHECK(durationText(-3500, false) == "-3.5 ms");
    CHECK(durationText(0.25, false) == "0.25 \u00b5s");
    CHECK(durationText(27, true) == "27");
}

TEST_CASE("Makespans read with about four significant digits", "[layout]") {
    CHECK(formatSignificant(380.259) == "380.3");
    CHECK(formatSignificant(33) == "33");
    CHECK(formatSignificant(28.5) == "28.5");
    CHECK(formatSignificant(1.23456) == "1.235");
    CHECK(formatSignificant(12345.6) == "12346");
    CHECK(formatSignificant(0.01234) == "0.012");
    CHECK(formatSignificant(0) == "0");
}

TEST_CASE("Many chunks share one legend entry", "[layout]") {
    const Simulated two = simulated("interleaved", 4, 8, 2);
    const std::vector<ChartPanel> twoPanels{{&two.timeline, "", ""}};
    const std::set<std::string> few = texts(layoutGantt(twoPanels, unitOptions()));
    CHECK(few.count("chunk a") == 1);
    CHECK(few.count("chunk b") == 1);
    const Simulated many = simulated("interleaved", 4, 16, 16);
    const std::vector<ChartPanel> manyPanels{{&many.timeline, "", ""}};
    const std::set<std::string> legend = texts(layoutGantt(manyPanels, unitOptions()));
    CHECK(legend.count("chunks a\u2013p (shade by chunk)") == 1);
    CHECK(legend.count("chunk a") == 0);
    CHECK(legend.count("chunk c") == 0);
}

TEST_CASE("A figure of a time range: the axis from start to end, bars cut at both ends", "[layout]") {
    const Simulated s = simulated("1f1b", 4, 8); // 33 units
    const std::vector<ChartPanel> panels{{&s.timeline, "", ""}};
    ChartOptions options = unitOptions();
    options.timeStart = 10;
    options.timeEnd = 20;
    const Scene scene = layoutGantt(panels, options);
    const ChartFrame frame = layoutChartFrame(scanChart(panels, options), options);
    const double left = frame.plotLeft, right = frame.plotLeft + frame.plotWidth;
    std::size_t inRange = 0;
    for (const TimelineEvent& e : s.timeline.events)
        inRange += e.lane == Lane::Compute && e.end > 10 && e.start < 20;
    const auto bars = rectsOf(scene, RectRole::Op);
    CHECK(bars.size() == inRange);
    for (const SceneRect* r : bars) {
        CHECK(r->x >= left - 1e-9);
        CHECK(r->x + r->w <= right + 1e-9);
    }
    // The axis's ticks are in the range.
    const std::set<std::string> t = texts(scene);
    CHECK(t.count("10") == 1);
    CHECK(t.count("20") == 1);
    CHECK(t.count("30") == 0);
    options.timeStart = 20;
    CHECK_THROWS_WITH(layoutGantt(panels, options), Catch::Contains("the start must be before the end"));
}
