// The simulator's fast paths against their general counterparts: list scheduling into timeline
// events, the index's count of cross-device dependencies, the metrics' reading of the
// simulator's layout against the general path on a reordered timeline, the memory curves built
// in one pass against those of a reordered timeline, and the iteration tail added in place.
#include "error.h"
#include "generators/registry.h"
#include "ir/op_index.h"
#include "passes/iteration_tail.h"
#include "sim/list_scheduler.h"
#include "sim/memory_model.h"
#include "sim/metrics.h"
#include "sim/simulator.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace stagecraft;

TEST_CASE("listScheduleInto writes the times listSchedule returns", "[perf]") {
    for (const char* name : {"1f1b", "interleaved", "zb-v", "chimera"}) {
        const Schedule s =
            addIterationTail(generateSchedule(name, ScheduleParams{4, 8, 2}), IterationTailOptions{});
        const OpIndex index(s);
        const OpCosts costs = fullStageCosts(s, 1.0, 2.0, 1.0, 0.25, 3.0, 0.5);
        const ListScheduleResult reference = listSchedule(s, index, costs);
        REQUIRE(reference.complete());
        std::vector<TimelineEvent> events(index.opCount());
        for (TimelineEvent& e : events) e.end = -1.0;
        const ListScheduleResult into = listScheduleInto(s, index, costs, events);
        CHECK(into.complete());
        CHECK(into.times.empty());
        CHECK(into.deviceOffset == reference.deviceOffset);
        for (std::size_t gid = 0; gid < events.size(); ++gid) {
            INFO(name << " op " << gid);
            CHECK(events[gid].start == reference.times[gid].start);
            CHECK(events[gid].end == reference.times[gid].end);
        }
    }
}

TEST_CASE("listScheduleInto reports a deadlock like listSchedule", "[perf]") {
    Schedule s = makeSchedule("hand", 2, 2, {loopedPlacement(2, 2)}, false);
    for (int mb : {0, 1}) pushOp(s, 0, OpKind::F, 0, 0, mb), pushOp(s, 0, OpKind::B, 0, 0, mb);
    for (int mb : {1, 0}) pushOp(s, 1, OpKind::F, 0, 1, mb), pushOp(s, 1, OpKind::B, 0, 1, mb);
    const OpIndex index(s);
    const OpCosts costs = fullStageCosts(s, 1, 1, 0);
    std::vector<TimelineEvent> events(index.opCount());
    for (TimelineEvent& e : events) e.end = -1.0;
    const ListScheduleResult into = listScheduleInto(s, index, costs, events);
    const ListScheduleResult reference = listSchedule(s, index, costs);
    REQUIRE(into.blocked.size() == 2);
    CHECK(into.blocked[0].reason == reference.blocked[0].reason);
    CHECK(into.blocked[1].reason == reference.blocked[1].reason);
    CHECK(into.cycle == std::vector<int>{0, 1});
    CHECK(events[0].end == 1.0); // F0 on device 0 ran before the ring closed
}

TEST_CASE("crossDeviceDependencies counts the simulator's transfer events", "[perf]") {
    for (const char* name : {"1f1b", "interleaved", "zb-v", "bitpipe"}) {
        const Schedule s = generateSchedule(name, ScheduleParams{4, 8, 2});
        const OpIndex index(s);
        const Timeline t = simulate(s, index, fullStageCosts(s, 1, 2, 1, 0.5));
        const auto transfers = std::count_if(t.events.begin(), t.events.end(), [](const TimelineEvent& e) {
            return e.comm == CommKind::Activation || e.comm == CommKind::Gradient;
        });
        INFO(name);
        CHECK(index.crossDeviceDependencies() == std::size_t(transfers));
        CHECK(t.events.size() == index.opCount() + index.crossDeviceDependencies());
    }
    const Schedule s = generateSchedule("1f1b", ScheduleParams{4, 8, 1});
    // F and B of every micro-batch cross each of the 3 device boundaries once.
    CHECK(OpIndex(s).crossDeviceDependencies() == std::size_t{2} * 3 * 8);
}

TEST_CASE("Metrics of the simulator's layout equal those of the same timeline reordered", "[perf]") {
    const Schedule s =
        addIterationTail(generateSchedule("interleaved", ScheduleParams{4, 8, 2}), IterationTailOptions{});
    const OpIndex index(s);
    OpCosts costs = fullStageCosts(s, 1.0, 2.0, 1.0, 0.3, 2.0, 0.5);
    costs.nodeOfDevice = {0, 0, 1, 1};
    costs.commInterNode = 0.7;
    const Timeline t = simulate(s, index, costs);
    Timeline byStart = t;
    std::stable_sort(byStart.events.begin(), byStart.events.end(),
                     [](const TimelineEvent& a, const TimelineEvent& b) { return a.start < b.start; });
    REQUIRE(!(byStart == t));
    const TimeMetrics fast = computeTimeMetrics(s, index, t, &costs);
    const TimeMetrics general = computeTimeMetrics(s, index, byStart, &costs);
    CHECK(fast.makespan == general.makespan);
    CHECK(fast.bubbleRatio == general.bubbleRatio);
    CHECK(fast.spanBubbleRatio == general.spanBubbleRatio);
    REQUIRE(fast.devices.size() == general.devices.size());
    for (std::size_t d = 0; d < fast.devices.size(); ++d) {
        INFO("device " << d);
        CHECK(fast.devices[d].busy == general.devices[d].busy);
        CHECK(fast.devices[d].idle == general.devices[d].idle);
        CHECK(fast.devices[d].lastEnd == general.devices[d].lastEnd);
        CHECK(fast.devices[d].bubbles.communication == general.devices[d].bubbles.communication);
        CHECK(fast.devices[d].bubbles.other == general.devices[d].bubbles.other);
        CHECK(fast.devices[d].bubbles.waitingOn == general.devices[d].bubbles.waitingOn);
    }
    // A stray event in the simulator's layout falls back to the general path and its error.
    Timeline broken = t;
    std::swap(broken.events[0], broken.events[1]);
    CHECK_THROWS_WITH(computeTimeMetrics(s, index, broken, &costs),
                      Catch::Contains("[timeline.mismatch]") && Catch::Contains("device 0 position 0"));
}

TEST_CASE("Memory curves in one pass equal those of a reordered timeline, peaks alone too",
          "[perf][memory]") {
    for (const char* name : {"1f1b", "interleaved", "zb-v", "chimera", "dualpipe"}) {
        INFO(name);
        const Schedule s =
            addIterationTail(generateSchedule(name, ScheduleParams{4, 8, 2}), IterationTailOptions{});
        const Timeline t = simulate(s, fullStageCosts(s, 1.0, 2.0, 1.0, 0.25));
        MemoryInputs inputs = unitMemoryInputs(s);
        for (std::size_t i = 0; i < inputs.stages.size(); ++i) inputs.stages[i].staticBytes = double(i);
        // Reversed: every device's changes arrive out of order and are sorted instead.
        Timeline reversed = t;
        std::reverse(reversed.events.begin(), reversed.events.end());
        const MemoryReport fast = computeMemory(s, t, inputs);
        const MemoryReport sorted = computeMemory(s, reversed, inputs);
        const MemoryReport peaks = computeMemory(s, t, inputs, MemoryDetail::PeaksOnly);
        CHECK(fast.worstDevice == sorted.worstDevice);
        CHECK(peaks.worstDevice == fast.worstDevice);
        REQUIRE(fast.devices.size() == sorted.devices.size());
        REQUIRE(peaks.devices.size() == fast.devices.size());
        for (std::size_t d = 0; d < fast.devices.size(); ++d) {
            INFO("device " << d);
            CHECK(fast.devices[d].curve.size() > 1);
            CHECK(fast.devices[d].curve == sorted.devices[d].curve);
            CHECK(fast.devices[d].peakBytes == sorted.devices[d].peakBytes);
            CHECK(fast.devices[d].peakTime == sorted.devices[d].peakTime);
            CHECK(peaks.devices[d].curve.empty());
            CHECK(peaks.devices[d].staticBytes == fast.devices[d].staticBytes);
            CHECK(peaks.devices[d].peakBytes == fast.devices[d].peakBytes);
            CHECK(peaks.devices[d].peakTime == fast.devices[d].peakTime);
        }
    }
}

TEST_CASE("The iteration tail added in place equals the copied one", "[perf]") {
    for (const GeneratorInfo& info : generators()) {
        INFO(info.name);
        Schedule s;
        try {
            s = generateSchedule(info.name, ScheduleParams{4, 8, 2});
        } catch (const Error&) {
            continue; // parameters this generator refuses
        }
        const Schedule copied = addIterationTail(s, IterationTailOptions{});
        Schedule moved = s;
        const Schedule inPlace = addIterationTail(std::move(moved), IterationTailOptions{});
        CHECK(inPlace == copied);
        CHECK(inPlace.notes == copied.notes);
        // Every stage replica syncs right after its last backward op, and steps close each order.
        const OpKind last = s.splitBackward ? OpKind::W : OpKind::B;
        for (std::size_t d = 0; d < copied.order.size(); ++d) {
            const std::vector<Op>& ops = copied.order[d];
            for (std::size_t i = 0; i < ops.size(); ++i) {
                if (ops[i].kind != OpKind::GradSync) continue;
                const bool hadSync = std::any_of(s.order[d].begin(), s.order[d].end(), [&](const Op& op) {
                    return op.kind == OpKind::GradSync && op.pipe == ops[i].pipe && op.stage == ops[i].stage;
                });
                if (hadSync) continue;
                REQUIRE(i > 0);
                CHECK(ops[i - 1].kind == last);
                CHECK(std::none_of(ops.begin() + std::ptrdiff_t(i), ops.end(), [&](const Op& op) {
                    return op.kind == last && op.pipe == ops[i].pipe && op.stage == ops[i].stage;
                }));
            }
            CHECK(ops.back().kind == OpKind::Optimizer);
            CHECK(ops.size() >= s.order[d].size());
        }
    }
}

TEST_CASE("The index of a schedule without W keeps no W slots, yet finds a stray W", "[perf]") {
    Schedule s = generateSchedule("1f1b", ScheduleParams{2, 2, 1});
    const OpIndex plain(s);
    CHECK_FALSE(plain.find(OpKind::W, 0, 0, 0).valid());
    CHECK(plain.find(OpKind::B, 0, 1, 1).valid());
    CHECK(plain.problems().empty());
    // A malformed file may hold a W although the schedule does not split: it is indexed too.
    s.order[1].push_back(Op{OpKind::W, 0, 0, 1, 0});
    const OpIndex stray(s);
    CHECK(stray.find(OpKind::W, 0, 1, 0) == OpRef{1, std::int32_t(s.order[1].size() - 1)});
    CHECK(stray.find(OpKind::B, 0, 1, 1) == plain.find(OpKind::B, 0, 1, 1));
    CHECK(stray.depsOf(stray.globalId(stray.find(OpKind::W, 0, 1, 0))).first ==
          std::int32_t(stray.globalId(stray.find(OpKind::B, 0, 1, 0))));
}
