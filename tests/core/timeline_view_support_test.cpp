// What timeline views (the viewer, the GUI) ask of a timeline beyond drawing it: finding an op
// by the text people type, key figures of a trace without its schedule, and the colour of a
// measured op by its error against the prediction.
#include "error.h"
#include "file_io.h"
#include "generators/registry.h"
#include "io/chrome_trace.h"
#include "io/trace_counters.h"
#include "layout/counter_series.h"
#include "layout/error_colors.h"
#include "sim/overlay.h"
#include "sim/simulator.h"
#include "sim/timeline_busy.h"
#include "sim/timeline_merge.h"
#include "sim/timeline_search.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <limits>

using namespace stagecraft;

namespace {

Timeline unitTimeline(const std::string& name, int p, int m, int v = 1) {
    const Schedule s = generateSchedule(name, {p, m, v});
    return simulate(s, fullStageCosts(s, 1, 1, 1, 0.0));
}

TimelineEvent event(int device, OpKind kind, int stage, int mb, double start, double end) {
    TimelineEvent e;
    e.device = device;
    e.op.kind = kind;
    e.op.stage = stage;
    e.op.mb = mb;
    e.start = start;
    e.end = end;
    return e;
}

} // namespace

TEST_CASE("findTimelineOps: an action string names one op, a label names it on every stage",
          "[view_support]") {
    const Timeline t = unitTimeline("1f1b", 4, 8);
    const std::vector<std::size_t> one = findTimelineOps(t, "3B5");
    REQUIRE(one.size() == 1);
    const TimelineEvent& e = t.events[one[0]];
    CHECK(e.op.kind == OpKind::B);
    CHECK(e.op.stage == 3);
    CHECK(e.op.mb == 5);
    CHECK(e.device == 3);
    // Blanks and lower case are fine; I names the backward too.
    CHECK(findTimelineOps(t, "  3b5 ") == one);
    CHECK(findTimelineOps(t, "3I5") == one);

    const std::vector<std::size_t> all = findTimelineOps(t, "f2");
    REQUIRE(all.size() == 4);
    for (std::size_t k = 0; k < all.size(); ++k) {
        CHECK(t.events[all[k]].op.kind == OpKind::F);
        CHECK(t.events[all[k]].op.mb == 2);
        if (k > 0) CHECK(t.events[all[k - 1]].start <= t.events[all[k]].start); // start order
    }
    // Stage 0 runs first in 1F1B.
    CHECK(t.events[all[0]].op.stage == 0);
}

TEST_CASE("findTimelineOps: on a sliced timeline a micro-batch names its slices, .SLICE one of them",
          "[view_support][slices]") {
    ScheduleParams params{4, 4, 1};
    params.slices = 2;
    const Schedule s = generateSchedule("seq1f1b", params);
    const Timeline t = simulate(s, fullStageCosts(s, 1, 1, 1));
    // "2F3.1" as every front end names it: stage 2, micro-batch 3, slice 1 (unit 7).
    const std::vector<std::size_t> one = findTimelineOps(t, "2F3.1");
    REQUIRE(one.size() == 1);
    CHECK(t.events[one[0]].op.stage == 2);
    CHECK(t.events[one[0]].op.mb == 7);
    // "2F3": both slices of micro-batch 3 on stage 2; "b3.0": slice 0's backward on every stage.
    const std::vector<std::size_t> both = findTimelineOps(t, "2F3");
    REQUIRE(both.size() == 2);
    CHECK(t.events[both[0]].op.mb == 6);
    CHECK(t.events[both[1]].op.mb == 7);
    const std::vector<std::size_t> slice0 = findTimelineOps(t, "b3.0");
    REQUIRE(slice0.size() == 4);
    for (const std::size_t i : slice0) CHECK(t.events[i].op.mb == 6);
    // A slice the timeline does not have names nothing, and the message says the range.
    std::string why;
    CHECK(findTimelineOps(t, "2F3.2", &why).empty());
    CHECK_THAT(why, Catch::Contains("slices 0..1"));
    CHECK(findTimelineOps(t, "2SYNC.1").empty());
    CHECK(findTimelineOps(t, "S.1").empty());
    // An unsliced timeline keeps reading a dot as nothing it knows.
    CHECK(findTimelineOps(unitTimeline("1f1b", 4, 8), "3B5.1").empty());
}

TEST_CASE("findTimelineOps: the second pipe, syncs, and queries that name nothing", "[view_support]") {
    const Timeline chimera = unitTimeline("chimera", 4, 4);
    // The first forward of the second pipe, by its action string.
    const auto second =
        std::find_if(chimera.events.begin(), chimera.events.end(),
                     [](const TimelineEvent& e) { return e.op.pipe == 1 && e.op.kind == OpKind::F; });
    REQUIRE(second != chimera.events.end());
    const std::string action = "p1:" + std::to_string(second->op.stage) + "F" + std::to_string(second->op.mb);
    const auto p1 = findTimelineOps(chimera, action);
    REQUIRE(p1.size() == 1);
    CHECK(chimera.events[p1[0]] == *second);
    std::string shouted = action;
    shouted[0] = 'P';
    CHECK(findTimelineOps(chimera, shouted) == p1);
    // Without the prefix: pipe 0's op of that stage and micro-batch, when there is one, never pipe 1's.
    for (std::size_t k : findTimelineOps(chimera, action.substr(3))) CHECK(chimera.events[k].op.pipe == 0);

    Timeline t;
    t.shape.devices = 1;
    t.events = {event(0, OpKind::F, 0, 0, 0, 1), event(0, OpKind::GradSync, 0, 0, 1, 2),
                event(0, OpKind::Optimizer, 0, 0, 2, 3)};
    CHECK(findTimelineOps(t, "S") == std::vector<std::size_t>{1});
    CHECK(findTimelineOps(t, "optimizer") == std::vector<std::size_t>{2});
    // One stage's sync or step by its op name (opName).
    CHECK(findTimelineOps(t, "0SYNC") == std::vector<std::size_t>{1});
    CHECK(findTimelineOps(t, "0opt") == std::vector<std::size_t>{2});
    CHECK(findTimelineOps(t, "1SYNC").empty());

    std::string why;
    CHECK(findTimelineOps(t, "3X17", &why).empty());
    CHECK(why.find("\"3X17\" names no op") != std::string::npos);
    CHECK(findTimelineOps(t, "", &why).empty());
    why.clear();
    CHECK(findTimelineOps(t, "5F9", &why).empty());
    CHECK(why == "no op \"5F9\" in this timeline");
}

TEST_CASE("measureTimelineBusy: makespan, bubble and busy time without the schedule", "[view_support]") {
    // 1F1B, F = 1 and a whole backward B + W = 2: makespan (m + p - 1) x 3, bubble
    // (p - 1) / (m + p - 1), the papers' formula.
    const Timeline t = unitTimeline("1f1b", 4, 8);
    const TimelineBusy b = measureTimelineBusy(t);
    CHECK(b.makespan == Approx(3.0 * (8 + 4 - 1)));
    REQUIRE(b.busy.size() == 4);
    for (double busy : b.busy) CHECK(busy == Approx(24.0));
    CHECK(b.bubbleRatio == Approx(3.0 / 11.0));

    // Bad events are left out; a device beyond the shape still counts.
    Timeline odd;
    odd.shape.devices = 1;
    odd.events = {event(0, OpKind::F, 0, 0, 0, 2), event(-1, OpKind::F, 0, 1, 0, 100),
                  event(2, OpKind::F, 0, 2, 2, 4), event(0, OpKind::B, 0, 0, 5, 3)};
    const TimelineBusy ob = measureTimelineBusy(odd);
    CHECK(ob.makespan == 4.0);
    REQUIRE(ob.busy.size() == 3);
    CHECK(ob.busy[0] == 2.0);
    CHECK(ob.busy[1] == 0.0);
    CHECK(ob.busy[2] == 2.0);
    CHECK(ob.bubbleRatio == Approx(1.0 - 4.0 / 12.0));
    CHECK(measureTimelineBusy(Timeline{}).bubbleRatio == 0.0);
}

TEST_CASE("durationErrorColor: grey when as predicted, red slower, blue faster, saturating",
          "[view_support]") {
    const Color neutral = durationErrorColor(10, 10);
    CHECK(durationErrorColor(10, 10.1) == neutral); // within 2 %
    CHECK(durationErrorColor(0, 5) == neutral);
    CHECK(durationErrorColor(10, std::numeric_limits<double>::infinity()) == neutral);
    const Color slow = durationErrorColor(10, 13), slower = durationErrorColor(10, 20);
    const Color fast = durationErrorColor(10, 7), faster = durationErrorColor(10, 5);
    CHECK(slow.r > slow.b);
    CHECK(slower.r > slow.r);
    CHECK(fast.b > fast.r);
    CHECK(faster.r < fast.r); // deeper blue: red fades
    CHECK(fast.r < neutral.r);
    CHECK(durationErrorColor(10, 40) == slower); // saturated at twice as slow
    CHECK(durationErrorColor(10, 2) == faster);
}

TEST_CASE("predictedEventOfMeasured inverts the overlay's matching", "[view_support]") {
    const Timeline p = unitTimeline("1f1b", 2, 4);
    Timeline m = p;
    m.origin = "measured";
    std::reverse(m.events.begin(), m.events.end()); // any order: matched by identity
    for (TimelineEvent& e : m.events) e.end = e.start + e.duration() * 1.5;
    const OverlayReport r = compareTimelines(p, m);
    const std::vector<std::int32_t> of = predictedEventOfMeasured(r, m.events.size());
    REQUIRE(of.size() == m.events.size());
    for (std::size_t k = 0; k < m.events.size(); ++k) {
        if (m.events[k].lane != Lane::Compute) continue;
        REQUIRE(of[k] >= 0);
        CHECK(p.events[std::size_t(of[k])].op == m.events[k].op);
    }
}

TEST_CASE("parseTraceCounters keeps the counters the timeline reader skips", "[view_support]") {
    // Written by the trace writer, read back by the counter reader.
    const Timeline t = unitTimeline("1f1b", 2, 2);
    ChromeTraceOptions options;
    options.counters = {CounterTrack{0, "memory (GiB)", {{0, 1.5}, {2, 2.5}, {4, 0.5}}},
                        CounterTrack{1, "memory (GiB)", {{1, 3}}}};
    const std::vector<CounterTrack> back = parseTraceCounters(timelineToChromeTrace(t, options), "t.json");
    REQUIRE(back.size() == 2);
    CHECK(back[0].device == 0);
    CHECK(back[0].name == "memory (GiB)");
    CHECK(back[0].points == options.counters[0].points);
    CHECK(back[1].device == 1);
    CHECK(back[1].points == options.counters[1].points);

    // Bare arrays; events without a value or pid are skipped; args beyond the first number ignored.
    const auto bare = parseTraceCounters(
        R"([{"ph":"C","name":"x","pid":3,"ts":5,"args":{"a":7,"b":9}},{"ph":"C","name":"x","pid":3,"ts":6,"args":{}},
            {"ph":"C","name":"x","ts":6,"args":{"a":1}},{"ph":"X","name":"0F0","pid":3,"ts":1,"dur":1,"args":{"v":4}}])",
        "bare.json");
    REQUIRE(bare.size() == 1);
    CHECK(bare[0].device == 3);
    CHECK(bare[0].points == std::vector<std::pair<double, double>>{{5, 7}});

    try {
        parseTraceCounters("{\"traceEvents\": [\n{\"ph\": \"C\",", "cut.json");
        FAIL("a truncated trace was accepted");
    } catch (const ParseError& e) {
        CHECK(e.id() == "trace.json");
        CHECK(e.line() == 2);
    }
}

TEST_CASE("readTraceCounters reads the file in blocks: as parseTraceCounters, errors located alike",
          "[view_support]") {
    const Timeline t = unitTimeline("1f1b", 4, 64);
    ChromeTraceOptions options;
    CounterTrack track{0, "memory (GiB)", {}};
    for (int i = 0; i < 20000; ++i) track.points.emplace_back(i, i % 7); // a text of several blocks
    options.counters = {track};
    const std::string text = timelineToChromeTrace(t, options);
    REQUIRE(text.size() > (std::size_t(1) << 20));
    const auto dir = std::filesystem::temp_directory_path() / "stagecraft_trace_counters_test";
    std::filesystem::create_directories(dir);
    const auto good = dir / "t.json";
    writeFileAtomically(good, text);
    const std::vector<CounterTrack> read = readTraceCounters(good);
    REQUIRE(read.size() == 1);
    CHECK(read[0].points == track.points);

    // Cut beyond the first 1 MiB block: the file and the text give the same line and column.
    const std::string truncated = text.substr(0, text.size() - 1000);
    const auto cut = dir / "cut.json";
    writeFileAtomically(cut, truncated);
    int line = 0, column = 0;
    try {
        parseTraceCounters(truncated, "cut.json");
    } catch (const ParseError& e) {
        line = e.line();
        column = e.column();
    }
    REQUIRE(line > 1);
    try {
        readTraceCounters(cut);
        FAIL("a truncated trace was accepted");
    } catch (const ParseError& e) {
        CHECK(e.id() == "trace.json");
        CHECK(e.line() == line);
        CHECK(e.column() == column);
    }
    CHECK_THROWS_AS(readTraceCounters(dir / "missing.json"), Error);
    std::filesystem::remove_all(dir);
}

TEST_CASE("CounterSeries: the maximum over any window, per pixel column", "[view_support]") {
    // A step curve: 0 before t = 10, then 5, 2, 8, 1.
    const std::vector<std::pair<double, double>> points = {{10, 5}, {20, 2}, {30, 8}, {40, 1}};
    const CounterSeries s(points);
    CHECK(s.peak() == 8);
    CHECK(s.low() == 1);
    CHECK(s.maxOver(0, 10) == 0); // nothing recorded yet
    CHECK(s.maxOver(0, 11) == 5);
    CHECK(s.maxOver(21, 29) == 2); // the value in force, no change inside
    CHECK(s.maxOver(25, 35) == 8);
    CHECK(s.maxOver(41, 100) == 1); // after the last change
    CHECK(s.maxOver(5, 5) == 0);    // empty window
    CHECK(s.columns(0, 40, 4) == std::vector<double>{0, 5, 2, 8});

    // Against the obvious scan, on a long random curve and many windows.
    std::vector<std::pair<double, double>> big;
    std::uint32_t x = 12345;
    for (int i = 0; i < 5000; ++i) {
        x = x * 1664525u + 1013904223u;
        big.emplace_back(i * 2.0, double(x % 1000));
    }
    const CounterSeries b(big);
    for (int w = 0; w < 300; ++w) {
        x = x * 1664525u + 1013904223u;
        const double t0 = double(x % 11000) - 500, t1 = t0 + 1 + double(x % 977);
        double expect = 0;
        bool any = false;
        for (std::size_t i = 0; i < big.size(); ++i) {
            const bool inForceAtT0 = big[i].first <= t0 && (i + 1 == big.size() || big[i + 1].first > t0);
            if (inForceAtT0 || (big[i].first > t0 && big[i].first < t1)) {
                expect = any ? std::max(expect, big[i].second) : big[i].second;
                any = true;
            }
        }
        if (!any || big[0].first > t0) expect = std::max(expect, 0.0);
        INFO("window " << t0 << " .. " << t1);
        CHECK(b.maxOver(t0, t1) == expect);
        // Columns agree with maxOver of each slice.
        const std::vector<double> cols = b.columns(t0, t1, 7);
        for (std::size_t c = 0; c < cols.size(); ++c) {
            const double step = (t1 - t0) / 7;
            CHECK(cols[c] == b.maxOver(t0 + step * double(c), t0 + step * double(c + 1)));
        }
    }
}

TEST_CASE("mergeRankTimelines: per-rank traces of one run become the run", "[view_support]") {
    const Timeline whole = unitTimeline("1f1b", 2, 4);
    Timeline rank0 = whole, rank1 = whole;
    rank0.origin = rank1.origin = "measured";
    std::erase_if(rank0.events, [](const TimelineEvent& e) { return e.device != 0; });
    std::erase_if(rank1.events, [](const TimelineEvent& e) { return e.device != 1; });
    REQUIRE_FALSE(rank0.events.empty());
    REQUIRE_FALSE(rank1.events.empty());
    const Timeline* parts[] = {&rank1, &rank0};
    const std::optional<Timeline> merged = mergeRankTimelines(parts);
    REQUIRE(merged);
    CHECK(merged->origin == "measured");
    CHECK(merged->events.size() == whole.events.size());
    // The same run: it matches the prediction op by op, with no error.
    const OverlayReport r = compareTimelines(whole, *merged);
    CHECK(r.maxAbsDurationError == 0);
    CHECK(r.maxAbsStartError == 0);

    std::string why;
    const Timeline* twice[] = {&rank0, &whole};
    CHECK_FALSE(mergeRankTimelines(twice, &why));
    CHECK(why == "device 0 has events in trace 0 and in trace 1; per-rank traces hold one device each");
    Timeline other = rank1;
    other.shape.microbatches = 5;
    const Timeline* mixed[] = {&rank0, &other};
    CHECK_FALSE(mergeRankTimelines(mixed, &why));
    CHECK(why == "trace 1 is of another schedule or shape than trace 0");
    const Timeline* one[] = {&rank0};
    CHECK_FALSE(mergeRankTimelines(one));
}
