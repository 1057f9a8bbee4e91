// Overlay of a predicted and a measured timeline: zero error for identical timelines, exact
// errors for a measurement 10% slower than predicted and shifted in time, and refusals that say
// what differs first.
#include "error.h"
#include "generators/registry.h"
#include "ir/op_name.h"
#include "passes/iteration_tail.h"
#include "sim/overlay.h"
#include "sim/simulator.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

Timeline predicted(const std::string& name = "1f1b", double comm = 0.0) {
    const Schedule s = generateSchedule(name, {4, 8, 2});
    return simulate(s, fullStageCosts(s, 1, 1, 1, comm));
}

/// `t` with every time `factor` times as late: every op `factor` times as long.
Timeline stretched(Timeline t, double factor) {
    for (TimelineEvent& e : t.events) {
        e.start *= factor;
        e.end *= factor;
    }
    return t;
}

std::string mismatchOf(const Timeline& p, const Timeline& m) {
    try {
        compareTimelines(p, m);
    } catch (const ValidationError& e) {
        return e.id() + " " + e.field() + ": " + e.message();
    }
    return "no error";
}

} // namespace

TEST_CASE("Identical timelines overlay with zero error", "[trace][overlay]") {
    for (const std::string name : {"1f1b", "zb-v", "chimera"}) {
        INFO(name);
        const Timeline t = predicted(name, 0.25);
        const OverlayReport r = compareTimelines(t, t);
        std::size_t ops = 0;
        for (const TimelineEvent& e : t.events)
            ops += e.comm != CommKind::Activation && e.comm != CommKind::Gradient;
        REQUIRE(r.ops.size() == ops);
        for (std::size_t k = 0; k < r.ops.size(); ++k) {
            CHECK(r.ops[k].predictedEvent == r.ops[k].measuredEvent);
            CHECK(r.ops[k].startError == 0);
            CHECK(r.ops[k].durationError == 0);
        }
        CHECK(r.makespanPredicted == t.makespan());
        CHECK(r.makespanMeasured == t.makespan());
        CHECK(r.makespanError == 0);
        CHECK(r.meanAbsDurationError == 0);
        CHECK(r.maxAbsDurationError == 0);
        CHECK(r.meanAbsStartError == 0);
        CHECK(r.maxAbsStartError == 0);
        CHECK(r.worstOp == 0);
        CHECK(r.alignOffset == 0);
        CHECK(r.bubblePredicted == r.bubbleMeasured);
    }
}

TEST_CASE("A measurement 10% slower and shifted gives the exact errors", "[trace][overlay]") {
    // 1F1B, p = 4, m = 8, F = 1 and a whole backward B = 2: makespan (m + p - 1) * 3 = 33, each
    // device busy 8 * 3 = 24.
    const Timeline p = predicted();
    CHECK(p.makespan() == 33);
    Timeline m = p;
    m.origin = "measured";
    for (TimelineEvent& e : m.events) {
        e.start = 1000 + 1.1 * e.start;
        e.end = 1000 + 1.1 * e.end;
    }
    // Measured in another order (device 3 first): matching is by identity, not position.
    std::rotate(m.events.begin(), m.events.begin() + 48, m.events.end());

    const OverlayReport r = compareTimelines(p, m);
    REQUIRE(r.ops.size() == 64);
    CHECK(r.alignOffset == 1000);
    for (const OpDeviation& d : r.ops) {
        const TimelineEvent& e = p.events[d.predictedEvent];
        CHECK(m.events[d.measuredEvent].op == e.op);
        CHECK(d.durationError == Approx(0.1 * e.duration()).margin(1e-9));
        CHECK(d.startError == Approx(0.1 * e.start).margin(1e-9));
    }
    CHECK(r.ops[0].measuredEvent == 16); // device 0's first op, after the 16 of device 3
    CHECK(r.makespanPredicted == 33);
    CHECK(r.makespanMeasured == Approx(36.3).margin(1e-9));
    // The prediction's error against the run: predicted 1 / 1.1 of what ran, 9.1 % short.
    CHECK(r.makespanError == Approx(1 / 1.1 - 1).margin(1e-12));
    CHECK(r.meanAbsDurationError == Approx(0.15).margin(1e-12)); // half F (0.1), half B (0.2)
    CHECK(r.maxAbsDurationError == Approx(0.2).margin(1e-12));
    CHECK(p.events[r.ops[std::size_t(r.worstOp)].predictedEvent].op.kind == OpKind::B);
    CHECK(r.maxAbsStartError == Approx(0.1 * 31).margin(1e-9)); // the last B starts at 31
    CHECK(r.bubblePredicted == Approx(9.0 / 33).margin(1e-12));
    CHECK(r.bubbleMeasured == Approx(9.0 / 33).margin(1e-12));
    double meanStart = 0;
    for (const OpDeviation& d : r.ops) meanStart += 0.1 * p.events[d.predictedEvent].start / 64;
    CHECK(r.meanAbsStartError == Approx(meanStart).margin(1e-9));
}

TEST_CASE("A measurement of another schedule is refused with the first difference", "[trace][overlay]") {
    const Timeline p = predicted();
    CHECK(mismatchOf(p, predicted("gpipe")) == "overlay.mismatch shape.schedule: the timelines are of "
                                               "different schedules: '1f1b' predicted, 'gpipe' "
                                               "measured");
    CHECK(mismatchOf(p, predicted("zb-h1")) ==
          "overlay.mismatch shape.split_backward: the timelines have different shapes: split_backward = 0 "
          "predicted, 1 measured");

    Timeline m = p;
    m.shape.devices = 2;
    CHECK(mismatchOf(p, m) ==
          "overlay.mismatch shape.devices: the timelines have different shapes: devices = 4 "
          "predicted, 2 measured");

    m = p;
    m.events.erase(m.events.begin() + 20);
    CHECK(mismatchOf(p, m) == "overlay.mismatch predicted.events[20]: op " +
                                  opName(p.events[20].op, p.shape.splitBackward) +
                                  " (device 1) of the prediction is missing from the measurement");

    m = p;
    m.events[5].device = 2;
    CHECK(mismatchOf(p, m) == "overlay.mismatch measured.events[5]: op " +
                                  opName(p.events[5].op, p.shape.splitBackward) +
                                  " runs on device 0 in the prediction and on device 2 in the measurement "
                                  "(events[5])");

    m = p;
    m.events.push_back(m.events[3]);
    CHECK(mismatchOf(p, m) == "overlay.mismatch measured.events[64]: op " +
                                  opName(p.events[3].op, p.shape.splitBackward) +
                                  " appears twice in the measurement (events[3] and events[64])");

    m = p;
    m.events[7].op.mb = 8;
    CHECK(mismatchOf(p, m) == "overlay.mismatch measured.events[7]: measured op " +
                                  opName(m.events[7].op, m.shape.splitBackward) +
                                  ": micro-batch 8 is outside [0, 8)");

    // An op the prediction does not have: an optimizer step the prediction left out.
    const Schedule withTail = addIterationTail(generateSchedule("1f1b", {4, 8, 1}), {false, true});
    const Timeline tail = simulate(withTail, fullStageCosts(withTail, 1, 1, 1));
    const std::string reason = mismatchOf(p, tail);
    CHECK(reason.rfind("overlay.mismatch measured.events[", 0) == 0);
    CHECK_THAT(reason, Catch::Contains("measured op 0OPT") && Catch::EndsWith("is not in the prediction"));
}

TEST_CASE("The breakdown groups op errors by device and kind and finds the ops that drifted most",
          "[trace][overlay]") {
    // 1F1B, p = 4, m = 8: F = 1 and B = 2 measured 10% slower on every device.
    const Timeline p = predicted();
    const Timeline m = stretched(p, 1.1);
    const OverlayReport r = compareTimelines(p, m);
    const OverlayBreakdown b = breakdownOverlay(p, m, r);
    REQUIRE(b.devices.size() == 4);
    for (const OverlayGroup& g : b.devices) {
        CHECK(g.ops == 16);
        CHECK(g.meanAbsDurationError == Approx(0.15).margin(1e-12));
        REQUIRE(g.durationRatio);
        CHECK(*g.durationRatio == Approx(1.1).margin(1e-12));
    }
    const OverlayGroup& f = b.kinds[std::size_t(OpKind::F)];
    const OverlayGroup& back = b.kinds[std::size_t(OpKind::B)];
    CHECK(f.ops == 32);
    CHECK(f.meanAbsDurationError == Approx(0.1).margin(1e-12));
    CHECK(back.ops == 32);
    CHECK(back.meanAbsDurationError == Approx(0.2).margin(1e-12));
    CHECK(*back.durationRatio == Approx(1.1).margin(1e-12));
    CHECK(b.kinds[std::size_t(OpKind::W)].ops == 0);
    CHECK_FALSE(b.kinds[std::size_t(OpKind::W)].durationRatio);
    REQUIRE(b.mostDrift.size() == 5);
    for (const std::size_t k : b.mostDrift) CHECK(p.events[r.ops[k].predictedEvent].op.kind == OpKind::B);
}

TEST_CASE("The breakdown says per device how much was busy and how much idle, predicted and measured",
          "[trace][overlay]") {
    // 1F1B, p = 4, m = 8, F = 1, B = 2: every device computes 8 x 3 = 24 of a makespan of
    // (m + p - 1) x 3 = 33, so it idles 9.
    const Timeline p = predicted();
    const Timeline slower = stretched(p, 1.1);
    const OverlayReport r = compareTimelines(p, slower);
    const OverlayBreakdown b = breakdownOverlay(p, slower, r);
    REQUIRE(b.deviceTimes.size() == 4);
    for (const DeviceTime& d : b.deviceTimes) {
        CHECK(d.busyPredicted == Approx(24).margin(1e-9));
        CHECK(d.idlePredicted == Approx(9).margin(1e-9));
        CHECK(d.busyMeasured == Approx(26.4).margin(1e-9));
        CHECK(d.idleMeasured == Approx(9.9).margin(1e-9));
    }
    // The last device starts 10 later and runs as long: its ops cost what was predicted, and every
    // device waits for it. Its last backward ends at 27 (three stages' backwards before device 0's),
    // so the run ends at 37 and every device idles 13.
    Timeline late = p;
    double lastEnd = 0;
    for (TimelineEvent& e : late.events)
        if (e.device == 3) {
            lastEnd = std::max(lastEnd, e.end);
            e.start += 10;
            e.end += 10;
        }
    CHECK(lastEnd == Approx(27).margin(1e-9));
    const OverlayReport lr = compareTimelines(p, late);
    const OverlayBreakdown lb = breakdownOverlay(p, late, lr);
    CHECK(lr.makespanMeasured == Approx(37).margin(1e-9));
    for (const DeviceTime& d : lb.deviceTimes) {
        CHECK(d.busyMeasured == Approx(24).margin(1e-9));
        CHECK(d.idleMeasured == Approx(13).margin(1e-9));
    }
}

TEST_CASE("The ops that drifted most come largest first, ties in prediction order", "[trace][overlay]") {
    const Timeline p = predicted();
    Timeline m = p;
    m.events[9].end += 2;  // longer
    m.events[30].end -= 3; // shorter: drifted most
    const OverlayReport r = compareTimelines(p, m);
    const OverlayBreakdown b = breakdownOverlay(p, m, r, 4);
    REQUIRE(b.mostDrift.size() == 4);
    CHECK(r.ops[b.mostDrift[0]].predictedEvent == 30);
    CHECK(r.ops[b.mostDrift[1]].predictedEvent == 9);
    CHECK(b.mostDrift[2] == 0); // no error: in the prediction's order
    CHECK(b.mostDrift[3] == 1);
    CHECK(breakdownOverlay(p, m, r, 1000).mostDrift.size() == r.ops.size());

    // Ops predicted to take no time have no ratio; a group of only such ops has none.
    Timeline zero = p;
    for (TimelineEvent& e : zero.events)
        if (e.device == 2) e.end = e.start;
    const OverlayBreakdown z = breakdownOverlay(zero, m, compareTimelines(zero, m));
    CHECK_FALSE(z.devices[2].durationRatio);
    CHECK(z.devices[2].ops == 16);
    CHECK(z.devices[2].meanAbsDurationError == Approx(1.5));
    CHECK(z.devices[1].durationRatio);

    // A device's ratio is its measured time over its predicted time: one short op that ran 30x
    // long (an optimizer step predicted at a few µs) does not make the device 30x slow.
    Timeline tiny = p;
    Timeline tinyMeasured = p;
    std::size_t first = 0;
    while (tiny.events[first].device != 0) ++first;
    tiny.events[first].end = tiny.events[first].start + 0.01;
    tinyMeasured.events[first].end = tinyMeasured.events[first].start + 0.3;
    const OverlayBreakdown t = breakdownOverlay(tiny, tinyMeasured, compareTimelines(tiny, tinyMeasured));
    REQUIRE(t.devices[0].durationRatio);
    CHECK(*t.devices[0].durationRatio < 1.1);
    CHECK(*t.devices[0].durationRatio > 1.0);

    // A report of other timelines is refused, not read out of bounds.
    Timeline shorter = m;
    shorter.events.resize(10);
    CHECK_THROWS_WITH(breakdownOverlay(p, shorter, r),
                      Catch::StartsWith("[overlay.mismatch] the overlay report is not of these timelines"));
}
