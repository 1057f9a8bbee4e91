// Critical path and idle intervals of simulated timelines.
#include "error.h"
#include "generators/registry.h"
#include "ir/op_index.h"
#include "ir/op_name.h"
#include "ir/overlap.h"
#include "sim/critical_path.h"
#include "sim/idle_intervals.h"
#include "sim/metrics.h"
#include "sim/simulator.h"

#include <catch2/catch.hpp>
#include <string>

using namespace stagecraft;

namespace {

/// Global ids of the first and last op of the slot `ref` is in (itself alone when in none).
std::pair<std::size_t, std::size_t> slotRange(const Schedule& s, const OpIndex& index, OpRef ref) {
    const ScheduleSlots slots = findSlots(s, index);
    for (const Slot& slot : slots.of[std::size_t(ref.device)])
        if (ref.index >= slot.position && ref.index < slot.position + slot.length) {
            const std::size_t first = index.globalId(OpRef{ref.device, slot.position});
            return {first, first + std::size_t(slot.length) - 1};
        }
    return {index.globalId(ref), index.globalId(ref)};
}

std::string describePath(const Timeline& t, const std::vector<std::size_t>& path) {
    std::string text;
    for (std::size_t k : path) {
        if (!text.empty()) text += ' ';
        text += opName(t.events[k].op, false) + "/d" + std::to_string(t.events[k].device);
    }
    return text;
}

double lastComputeEnd(const Timeline& t) {
    double end = 0;
    for (const TimelineEvent& e : t.events)
        if (e.lane == Lane::Compute) end = std::max(end, e.end);
    return end;
}

} // namespace

TEST_CASE("Critical path of 1F1B p=4 m=8 under unit costs", "[gui2][critical-path]") {
    const Schedule s = generateSchedule("1f1b", {4, 8, 1});
    const OpIndex index(s);
    const OpCosts costs = fullStageCosts(s, 1.0, 1.0, 0.0);
    const Timeline t = simulate(s, index, costs);
    const auto path = criticalPath(s, index, t, &costs);
    // F = B = 1: every release is a tie between a dependency and the device's previous op, and
    // dependencies win, so the path zigzags through the pipeline; 22 ops of 1 = the makespan.
    CHECK(describePath(t, path) ==
          "0F0/d0 1F0/d1 2F0/d2 3F0/d3 3B0/d3 2B0/d2 1B0/d1 1F3/d1 2F3/d2 3F3/d3 3B3/d3 "
          "2B3/d2 1B3/d1 0B3/d0 0F7/d0 1F7/d1 2F7/d2 3F7/d3 3B7/d3 2B7/d2 1B7/d1 0B7/d0");
    CHECK(path.size() == 22);
    CHECK(t.makespan() == 22.0);
    CHECK(t.events[path.front()].start == 0.0);
    CHECK(t.events[path.back()].end == t.makespan());
}

TEST_CASE("Critical paths chain dependent or device-adjacent ops without gaps",
          "[gui2][critical-path][property]") {
    for (const GeneratorInfo& info : generators()) {
        for (const double comm : {0.0, 0.25}) {
            ScheduleParams params{4, 8, 2};
            if (constraintViolation(info, params)) params.chunks = 1;
            if (constraintViolation(info, params)) continue;
            const Schedule s = generateSchedule(info.name, params);
            const OpIndex index(s);
            const OpCosts costs = fullStageCosts(s, 1.0, 1.0, 1.0, comm);
            const Timeline t = simulate(s, index, costs);
            const auto path = criticalPath(s, index, t, &costs);
            INFO(info.name << " comm=" << comm << ": " << describePath(t, path));
            REQUIRE(!path.empty());
            CHECK(t.events[path.front()].start == Approx(0.0).margin(1e-12));
            CHECK(t.events[path.back()].end == Approx(lastComputeEnd(t)));
            // Busy time on the path plus the transfers between its ops covers the span.
            double covered = t.events[path.front()].end - t.events[path.front()].start;
            for (std::size_t i = 1; i < path.size(); ++i) {
                const TimelineEvent& a = t.events[path[i - 1]];
                const TimelineEvent& b = t.events[path[i]];
                const OpRef ra = index.find(a.op.kind, a.op.pipe, a.op.stage, a.op.mb);
                const OpRef rb = index.find(b.op.kind, b.op.pipe, b.op.stage, b.op.mb);
                // A slot (ir/overlap.h) is one unit: a depends on b when an op of a's slot feeds
                // an op of b's slot (a is the last op of its slot, b the first of its own).
                const auto [aFirst, aLast] = slotRange(s, index, ra);
                const auto [bFirst, bLast] = slotRange(s, index, rb);
                bool dependent = false;
                for (std::size_t g = bFirst; g <= bLast; ++g) {
                    const OpDeps deps = index.depsOf(g);
                    for (const std::int32_t dep : {deps.first, deps.second})
                        dependent = dependent || (dep >= 0 && std::size_t(dep) >= aFirst &&
                                                  std::size_t(dep) <= aLast && !(aFirst == bFirst));
                }
                const bool adjacent = ra.device == rb.device && ra.index + 1 == rb.index;
                CHECK((dependent || adjacent));
                const double transfer = dependent ? costs.commBetween(a.device, b.device, b.op.mb) : 0.0;
                CHECK(b.start == Approx(a.end + transfer));
                covered += transfer + (b.end - b.start);
            }
            CHECK(covered == Approx(lastComputeEnd(t)));
        }
    }
}

TEST_CASE("Critical path rejects a timeline of another schedule", "[gui2][critical-path]") {
    const Schedule s = generateSchedule("1f1b", {4, 8, 1});
    const Schedule other = generateSchedule("gpipe", {4, 8, 1});
    const OpCosts costs = fullStageCosts(other, 1.0, 1.0, 0.0);
    const Timeline t = simulate(other, costs);
    try {
        criticalPath(s, OpIndex(s), t, &costs);
        FAIL("no error");
    } catch (const ValidationError& e) {
        CHECK(std::string(e.id()) == "timeline.mismatch");
    }
}

TEST_CASE("Idle intervals sum to the metrics' bubble breakdown for every generator", "[gui2][idle]") {
    for (const GeneratorInfo& info : generators()) {
        for (const double comm : {0.0, 0.5}) {
            ScheduleParams params{4, 8, 2};
            if (constraintViolation(info, params)) params.chunks = 1;
            if (constraintViolation(info, params)) continue;
            const Schedule s = generateSchedule(info.name, params);
            const OpIndex index(s);
            const OpCosts costs = fullStageCosts(s, 1.0, 1.3, 0.7, comm, 0.5, 0.2);
            const Timeline t = simulate(s, index, costs);
            const TimeMetrics m = computeTimeMetrics(s, index, t, &costs);
            const auto intervals = idleIntervals(s, index, t, &costs);
            INFO(info.name << " comm=" << comm);
            std::vector<BubbleBreakdown> sums(std::size_t(s.devices));
            for (auto& b : sums) b.waitingOn.assign(std::size_t(s.devices), 0.0);
            double lastStart = -1;
            int lastDevice = -1;
            for (const IdleInterval& iv : intervals) {
                REQUIRE(iv.end > iv.start);
                if (iv.device == lastDevice) CHECK(iv.start >= lastStart);
                lastDevice = iv.device, lastStart = iv.start;
                BubbleBreakdown& b = sums[std::size_t(iv.device)];
                switch (iv.cause) {
                case IdleCause::Warmup:
                    b.warmup += iv.duration();
                    break;
                case IdleCause::Cooldown:
                    b.cooldown += iv.duration();
                    break;
                case IdleCause::WaitingOn:
                    b.waitingOn[std::size_t(iv.waitingOnDevice)] += iv.duration();
                    break;
                case IdleCause::Communication:
                    b.communication += iv.duration();
                    break;
                case IdleCause::Other:
                    b.other += iv.duration();
                    break;
                }
            }
            for (int d = 0; d < s.devices; ++d) {
                const BubbleBreakdown& want = m.devices[std::size_t(d)].bubbles;
                const BubbleBreakdown& got = sums[std::size_t(d)];
                INFO("device " << d);
                CHECK(got.warmup == Approx(want.warmup).margin(1e-9));
                CHECK(got.cooldown == Approx(want.cooldown).margin(1e-9));
                CHECK(got.communication == Approx(want.communication).margin(1e-9));
                CHECK(got.other == Approx(want.other).margin(1e-9));
                for (int k = 0; k < s.devices; ++k)
                    CHECK(got.waitingOn[std::size_t(k)] ==
                          Approx(want.waitingOn[std::size_t(k)]).margin(1e-9));
            }
        }
    }
}

TEST_CASE("Idle intervals of GPipe p=2 m=2 name the producer", "[gui2][idle]") {
    const Schedule s = generateSchedule("gpipe", {2, 2, 1});
    const OpIndex index(s);
    const OpCosts costs = fullStageCosts(s, 1.0, 2.0, 0.0, 0.5);
    const Timeline t = simulate(s, index, costs);
    const auto intervals = idleIntervals(s, index, t, &costs);
    std::string text;
    for (const IdleInterval& iv : intervals) {
        text += "d" + std::to_string(iv.device) + " " + idleCauseName(iv.cause) + " " +
                std::to_string(iv.start) + "-" + std::to_string(iv.end);
        if (iv.producer >= 0) text += " on " + opName(t.events[std::size_t(iv.producer)].op, false);
        text += "\n";
    }
    // d1 waits for F0's transfer (warmup, as metrics counts it); d0 waits for stage 1's B0,
    // then for its gradient to arrive.
    CHECK(text == "d0 waiting 2.000000-5.500000 on 1B0\n"
                  "d0 communication 5.500000-6.000000 on 1B0\n"
                  "d1 warmup 0.000000-1.500000\n"
                  "d1 cooldown 7.500000-10.000000\n");
}
