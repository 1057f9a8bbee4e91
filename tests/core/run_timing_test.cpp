// The stagecraft-run timing (passes/run_timing.h): the lowered programs as stagecraft-run executes
// them. With free transfers it is the list scheduler exactly, for every registered schedule; with
// a transfer time it never runs an op earlier, and a receive posted when the op before it frees
// its slot costs the transfer between the two ops (worked by hand below).
#include "eval/project_simulation.h"
#include "generators/registry.h"
#include "passes/buffer_slots.h"
#include "passes/iteration_tail.h"
#include "passes/lower.h"
#include "passes/run_timing.h"
#include "project/project_json.h"
#include "sim/simulator.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

struct Timed {
    Timeline listScheduled, run;
    ProgramTiming programs;
};

Timed timeBoth(const Schedule& s, const OpCosts& costs) {
    Timed t;
    t.listScheduled = simulate(s, costs);
    const Lowered lowered = lower(s);
    t.run = timeLikeStagecraftRun(s, lowered, t.listScheduled, costs, &t.programs);
    return t;
}

double makespanOf(const Timeline& t) {
    double end = 0;
    for (const TimelineEvent& e : t.events) end = std::max(end, e.end);
    return end;
}

/// The compute event of `kind` (pipe 0) of `stage` and `mb`.
const TimelineEvent& eventOf(const Timeline& t, OpKind kind, int stage, int mb) {
    for (const TimelineEvent& e : t.events)
        if (e.lane == Lane::Compute && e.op.kind == kind && e.op.stage == stage && e.op.mb == mb) return e;
    FAIL("no event " << opKindName(kind) << " stage " << stage << " mb " << mb);
    throw std::logic_error("unreachable");
}

} // namespace

TEST_CASE("With free transfers the stagecraft-run timing is the list scheduler's, for every schedule",
          "[run_timing][property]") {
    int timed = 0;
    test::forEachAcceptedParams(6, 12, 2, [&](const GeneratorInfo& info, const ScheduleParams& params) {
        INFO(info.name << " p=" << params.pp << " m=" << params.microbatches << " v=" << params.chunks);
        for (bool tail : {false, true}) {
            Schedule s = generateSchedule(info.name, params);
            // The list scheduler starts an overlapped or whole-backward slot once every op of it
            // has its inputs; stagecraft-run runs the slot's ops one after the other, each once
            // its own input arrived (below).
            if (!s.overlapped.empty() || !s.wholeBackward.empty()) return;
            if (tail) s = addIterationTail(s, {});
            // Unequal costs, so that an op started at the wrong moment shows. No transfer takes
            // time, so neither timeline has transfer events.
            const OpCosts costs = fullStageCosts(s, 3, 2, 1.5, 0.0, 0.7, 0.4);
            const Timed t = timeBoth(s, costs);
            REQUIRE(t.run.events.size() == t.listScheduled.events.size());
            for (std::size_t i = 0; i < t.run.events.size(); ++i) {
                INFO("event " << i);
                REQUIRE(t.run.events[i].start == Approx(t.listScheduled.events[i].start).margin(1e-9));
                REQUIRE(t.run.events[i].end == Approx(t.listScheduled.events[i].end).margin(1e-9));
            }
            ++timed;
        }
    });
    CHECK(timed > 500);
}

TEST_CASE("With a transfer time no op runs earlier than the list scheduler runs it",
          "[run_timing][property]") {
    int later = 0, timed = 0;
    test::forEachAcceptedParams(5, 10, 2, [&](const GeneratorInfo& info, const ScheduleParams& params) {
        INFO(info.name << " p=" << params.pp << " m=" << params.microbatches << " v=" << params.chunks);
        Schedule s = generateSchedule(info.name, params);
        if (!s.overlapped.empty() || !s.wholeBackward.empty()) return; // slots: see above
        s = addIterationTail(std::move(s), {});
        const OpCosts costs = fullStageCosts(s, 3, 2, 1.5, 0.6, 0.7, 0.4);
        const Timed t = timeBoth(s, costs);
        const std::size_t ops = s.opCount();
        for (std::size_t i = 0; i < ops; ++i) {
            INFO("event " << i);
            REQUIRE(t.run.events[i].start >= t.listScheduled.events[i].start - 1e-9);
            REQUIRE(t.run.events[i].duration() == Approx(t.listScheduled.events[i].duration()));
        }
        // Every transfer takes the link's time, from both ends posted.
        for (std::size_t i = ops; i < t.run.events.size(); ++i) {
            REQUIRE(t.run.events[i].isTransfer());
            REQUIRE(t.run.events[i].duration() == Approx(0.6));
        }
        later += makespanOf(t.run) > makespanOf(t.listScheduled) + 1e-9;
        ++timed;
    });
    // Posting a receive only when its slot is free costs something somewhere.
    CHECK(later > 0);
    CHECK(later < timed);
}

TEST_CASE("A receive posted when the op before frees its slot costs the transfer between the two ops",
          "[run_timing]") {
    // 1F1B, p = 2, m = 2, F = 1, B = 2 (whole backward), transfers 0.5. Rank 1 (the last stage)
    // holds one slot: micro-batch 1's input can be received only once B0 gave the slot back.
    //   list scheduler: rank 1 F1 at max(B0 end 4.5, rank 0's F1 end 2 + 0.5) = 4.5
    //   stagecraft-run: RECV_F1 posted at 4.5, the tensor arrives 4.5 + 0.5 = 5: F1 [5, 6], B1 [6, 8],
    //   rank 0's B1 at 8 + 0.5: [8.5, 10.5] (the list scheduler: 10).
    const Schedule s = generateSchedule("1f1b", {2, 2, 1});
    const OpCosts costs = fullStageCosts(s, 1, 1, 1, 0.5);
    const Lowered lowered = lower(s);
    REQUIRE(planSlots(lowered, 1).slots == 1);
    const Timed t = timeBoth(s, costs);
    CHECK(eventOf(t.listScheduled, OpKind::F, 1, 1).start == Approx(4.5));
    CHECK(makespanOf(t.listScheduled) == Approx(10));
    CHECK(eventOf(t.run, OpKind::F, 1, 1).start == Approx(5));
    CHECK(eventOf(t.run, OpKind::B, 1, 1).end == Approx(8));
    CHECK(eventOf(t.run, OpKind::B, 0, 1).start == Approx(8.5));
    CHECK(makespanOf(t.run) == Approx(10.5));
    CHECK(t.programs.makespan == Approx(10.5));
}

TEST_CASE("A program whose receive is never sent is a deadlock naming the rank", "[run_timing]") {
    const Schedule s = generateSchedule("1f1b", {2, 2, 1});
    const OpCosts costs = fullStageCosts(s, 1, 1, 1, 0.5);
    Lowered lowered = lower(s);
    auto& ins = lowered.programs[0].instructions;
    const auto send = std::find_if(ins.begin(), ins.end(), [](const Instruction& in) {
        return in.kind == InstrKind::Send && in.dir == Direction::F && in.mb == 1;
    });
    REQUIRE(send != ins.end());
    ins.erase(send);
    const std::string error =
        test::errorSummary([&] { (void)timeLikeStagecraftRun(s, lowered, simulate(s, costs), costs); });
    INFO(error);
    // Rank 1 never gets micro-batch 1's input, so rank 0 never gets its gradient: both are named.
    CHECK(error.rfind("timing.deadlock [rank 0]", 0) == 0);
    CHECK(error.find("rank 0 at B s0 mb1 slot 1 for rank 1; rank 1 at F s1 mb1 slot 0 for rank 0") !=
          std::string::npos);
}

TEST_CASE("costs.timing = stagecraft-run: predict() times the lowered programs and says so", "[run_timing]") {
    Project project = defaultProject();
    project.parallel.pp = 2;
    project.parallel.dp = 1;
    project.model.layers = 4;
    project.costs.mode = CostMode::Manual;
    project.costs.f = 1000;
    project.costs.b = 1000;
    project.costs.w = 1000;
    project.costs.comm = 500;
    const Schedule s = generateSchedule("1f1b", {2, 2, 1});
    const Prediction listed = predict(project, s);
    applyProjectOverride(project, "costs.timing=stagecraft-run");
    REQUIRE(project.costs.timing == Timing::StagecraftRun);
    const Prediction run = predict(project, s);
    // The hand-worked case above in ms (plus the optimizer steps of the tail, the same in both).
    CHECK(listed.report.time.makespan >= 10000);
    CHECK(run.report.time.makespan - listed.report.time.makespan == Approx(500));
    CHECK(eventOf(run.timeline, OpKind::F, 1, 1).start == Approx(5000));
    CHECK(run.report.notes.find("timed as stagecraft-run runs it") != std::string::npos);
    CHECK(listed.report.notes.find("stagecraft-run") == std::string::npos);
    // The field reads back by name and refuses what it does not know.
    CHECK(test::errorSummary([&] {
              applyProjectOverride(project, "costs.timing=nccl");
          }).find("costs.timing") != std::string::npos);
}
