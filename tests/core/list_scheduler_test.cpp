// The list scheduler and the validator on hand-built schedules: deadlock rings, orders that run
// an op before its own dependency, asynchronous gradient collectives and the optimizer.
#include "error.h"
#include "ir/op_index.h"
#include "sim/list_scheduler.h"
#include "sim/simulator.h"
#include "validate/validator.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

Schedule twoDevices(bool split = false) {
    return makeSchedule("hand", 2, 2, {loopedPlacement(2, 2)}, split);
}

/// Two pipes over two devices (Chimera-like, p = 2): pipe 0 stage s on device s, pipe 1 stage s on
/// device 1 - s; micro-batch 0 goes down, 1 goes up.
Schedule bidirectional() {
    Schedule s = makeSchedule("bidir", 2, 2, {{{0, 0}, {1, 0}}, {{1, 1}, {0, 1}}}, false);
    pushOp(s, 0, OpKind::F, 0, 0, 0);
    pushOp(s, 0, OpKind::F, 1, 1, 1);
    pushOp(s, 0, OpKind::B, 1, 1, 1);
    pushOp(s, 0, OpKind::GradSync, 1, 1, -1);
    pushOp(s, 0, OpKind::B, 0, 0, 0);
    pushOp(s, 0, OpKind::GradSync, 0, 0, -1);
    pushOp(s, 0, OpKind::Optimizer, 0, 0, -1);
    pushOp(s, 1, OpKind::F, 1, 0, 1);
    pushOp(s, 1, OpKind::F, 0, 1, 0);
    pushOp(s, 1, OpKind::B, 0, 1, 0);
    pushOp(s, 1, OpKind::GradSync, 0, 1, -1);
    pushOp(s, 1, OpKind::B, 1, 0, 1);
    pushOp(s, 1, OpKind::GradSync, 1, 0, -1);
    pushOp(s, 1, OpKind::Optimizer, 1, 0, -1);
    return s;
}

} // namespace

TEST_CASE("A cross-device wait cycle is reported as a ring", "[validate]") {
    Schedule s = twoDevices();
    for (int mb : {0, 1}) pushOp(s, 0, OpKind::F, 0, 0, mb), pushOp(s, 0, OpKind::B, 0, 0, mb);
    for (int mb : {1, 0}) pushOp(s, 1, OpKind::F, 0, 1, mb), pushOp(s, 1, OpKind::B, 0, 1, mb);
    const auto problems = findProblems(s);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].id == "schedule.deadlock");
    CHECK(problems[0].message ==
          "deadlock: devices wait on each other in a ring: device 0 waits at position 1 (0B0) for 1B0 at "
          "position 3 of device 1; device 1 waits at position 0 (1F1) for 0F1 at position 2 of device 0");
    CHECK_THROWS_WITH(validate(s), Catch::Contains("[schedule.deadlock]"));
}

TEST_CASE("The simulator names every blocked device of a deadlock, separated by semicolons", "[tidy]") {
    Schedule s = twoDevices();
    for (int mb : {0, 1}) pushOp(s, 0, OpKind::F, 0, 0, mb), pushOp(s, 0, OpKind::B, 0, 0, mb);
    for (int mb : {1, 0}) pushOp(s, 1, OpKind::F, 0, 1, mb), pushOp(s, 1, OpKind::B, 0, 1, mb);
    try {
        simulate(s, fullStageCosts(s, 1, 1, 1));
        FAIL("simulated a deadlocking schedule");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "schedule.deadlock");
        CHECK(e.message() == "schedule 'hand' deadlocks: device 0 waits at position 1 (0B0) for 1B0 at "
                             "position 3 of device 1; device 1 waits at position 0 (1F1) for 0F1 at "
                             "position 2 of device 0");
    }
}

TEST_CASE("An op ordered before its own dependency names both positions", "[validate]") {
    Schedule s = twoDevices();
    pushOp(s, 0, OpKind::F, 0, 0, 0), pushOp(s, 0, OpKind::F, 0, 0, 1);
    pushOp(s, 0, OpKind::B, 0, 0, 0), pushOp(s, 0, OpKind::B, 0, 0, 1);
    pushOp(s, 1, OpKind::B, 0, 1, 0), pushOp(s, 1, OpKind::F, 0, 1, 0);
    pushOp(s, 1, OpKind::F, 0, 1, 1), pushOp(s, 1, OpKind::B, 0, 1, 1);
    const auto problems = findProblems(s);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].id == "schedule.order");
    CHECK(problems[0].message ==
          "device 1 position 0: 1B0 runs before its dependency 1F0 at position 1 of the "
          "same device");
}

TEST_CASE("Missing, duplicated and misplaced ops are all reported", "[validate]") {
    Schedule s = twoDevices(true);
    pushOp(s, 0, OpKind::F, 0, 0, 0), pushOp(s, 0, OpKind::F, 0, 0, 0);
    s.order[1].push_back(Op{OpKind::F, 0, 0, 0, 1}); // stage 0 belongs to device 0
    const auto problems = findProblems(s);
    std::vector<std::string> ids;
    ids.reserve(problems.size());
    for (const auto& p : problems) ids.push_back(p.id);
    CHECK(std::count(ids.begin(), ids.end(), "schedule.op") == 1);
    CHECK(std::count(ids.begin(), ids.end(), "schedule.duplicate") == 1);
    CHECK(std::count(ids.begin(), ids.end(), "schedule.missing") >= 5);
    CHECK(problems[0].message ==
          "device 1 position 0: 0F1 runs on device 1, but its stage is placed on device 0");
}

TEST_CASE("Gradient syncs run asynchronously on the communication lane", "[sim]") {
    const Schedule s = bidirectional();
    validate(s);
    OpCosts costs = fullStageCosts(s, 1, 2, 0, 0, /*gradSync=*/5, /*optimizer=*/1);
    const ListScheduleResult run = listSchedule(s, OpIndex(s), costs);
    REQUIRE(run.complete());
    // Device 0: F0@0, F1'@1 (waits for device 1's F1'@0), B1'@2..4, posts sync(s1) at 4,
    // B0 waits for device 1's B0.
    CHECK(run.time(0, 2).end == 4);
    // Posting the sync does not hold back the next compute op.
    CHECK(run.time(0, 4).start == std::max(run.time(0, 2).end, run.time(1, 2).end));
    // The collective of stage 1 starts when both replicas (device 0's pipe-1 copy and device 1's
    // pipe-0 copy) have posted it, and lasts 5.
    const OpTime sync0 = run.time(0, 3), sync1 = run.time(1, 3);
    CHECK(sync0.start == sync1.start);
    CHECK(sync0.start == std::max(run.time(0, 2).end, run.time(1, 2).end));
    CHECK(sync0.end - sync0.start == 5);
    // The optimizer waits for its stage's sync, which queues behind the first collective.
    const OpTime lastSync = run.time(0, 5);
    CHECK(lastSync.start >= sync0.end);
    CHECK(run.time(0, 6).start == lastSync.end);
}

TEST_CASE("A stage replica that does not sync is reported", "[validate]") {
    Schedule s = bidirectional();
    // Drop device 1's sync of stage 0 (pipe 1): the pipe-0 replica on device 0 would sync alone.
    REQUIRE(s.order[1][5].kind == OpKind::GradSync);
    s.order[1].erase(s.order[1].begin() + 5);
    const auto problems = findProblems(s);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].id == "schedule.sync");
    CHECK(problems[0].message ==
          "stage 0 of pipe 1 (device 1) has no gradient sync while its replica in the other "
          "pipe has one: replicas of a stage sync together");
}

TEST_CASE("findProblems refuses a shape far larger than its ops before indexing it", "[tidy]") {
    Schedule s = twoDevices();
    for (int mb : {0, 1}) pushOp(s, 0, OpKind::F, 0, 0, mb), pushOp(s, 1, OpKind::F, 0, 1, mb);
    s.microbatches = 1 << 20;
    const auto problems = findProblems(s);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].id == "schedule.shape");
    CHECK(problems[0].message == "pipes = 1, stages per pipe = 2, micro-batches = 1048576 declare 6291456 op "
                                 "slots (3 x pipes x stages x micro-batches) for 4 ops: must be at most 4 x "
                                 "ops + 65536 = 65552");
    CHECK_THROWS_WITH(validate(s), Catch::Contains("[schedule.shape]"));
}

TEST_CASE("The slot bound of findProblems is 4 x ops + 65536", "[tidy]") {
    Schedule s = twoDevices();
    s.microbatches = 10922; // 3 x 1 x 2 x 10922 = 65532 slots for 0 ops: indexed, ops reported missing
    auto problems = findProblems(s, 1);
    REQUIRE_FALSE(problems.empty());
    CHECK(problems[0].id == "schedule.missing");
    s.microbatches = 10923; // 65538 slots
    problems = findProblems(s, 1);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].id == "schedule.shape");
}
