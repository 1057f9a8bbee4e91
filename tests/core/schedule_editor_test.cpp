// ScheduleEditor: hand edits of an order. The acceptance path of issue 24 (1F1B with a split
// backward moved, W by W, into ZB-H1's order and its 27 units), what a broken edit names, exact
// undo, and the incremental re-timing checked against a full list scheduling after every one of
// many random moves on several schedules; repair of orders that random moves broke.
#include "edit/fill_bubbles.h"
#include "edit/repair.h"
#include "edit/schedule_editor.h"
#include "error.h"
#include "file_io.h"
#include "generators/registry.h"
#include "io/edit_list.h"
#include "ir/op_name.h"
#include "sim/memory_model.h"
#include "sim/metrics.h"
#include "validate/validator.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>
#include <unordered_map>

namespace {

using namespace stagecraft;

/// Unit costs in the editor's convention: F = B = W = 1 per full stage, `comm` per transfer.
OpCosts unitCosts(const Schedule& s, double comm = 0) {
    Schedule split = s;
    split.splitBackward = true;
    return fullStageCosts(split, 1, 1, 1, comm);
}

/// Unit costs with a gradient sync of `sync` and an optimizer step of `step` per stage replica.
OpCosts unitCostsWithTail(const Schedule& s, double comm, double sync, double step) {
    Schedule split = s;
    split.splitBackward = true;
    return fullStageCosts(split, 1, 1, 1, comm, sync, step);
}

Edit edit(const std::string& text) {
    return parseEdit(text);
}

/// A shift of a random op of a random device by up to `span` places either way.
Edit randomShift(const Schedule& s, std::mt19937& random, int span) {
    const int d = int(random() % unsigned(s.devices));
    const auto& ops = s.order[std::size_t(d)];
    Edit e;
    e.kind = EditKind::Shift;
    e.op = ops[random() % ops.size()];
    e.index = std::int64_t(random() % unsigned(2 * span + 1)) - span;
    return e;
}

/// "id | message" of the edit's refusal (the editor's schedule checked unchanged), or "applied".
std::string refusalOf(ScheduleEditor& editor, const std::string& text) {
    const Schedule before = editor.schedule();
    try {
        editor.apply(parseEdit(text, "edit", editor.schedule().sequenceSlices));
    } catch (const ValidationError& e) {
        CHECK(editor.schedule() == before);
        return e.id() + " | " + e.message();
    }
    return "applied";
}

EditList acceptanceList() {
    return parseEditList(
        readTextFile(std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "samples/edits/1f1b-to-zb-h1.edits.json"),
        "1f1b-to-zb-h1.edits.json");
}

/// Every op's start and end equal a full list scheduling of the editor's order, or both say the
/// order cannot run.
void checkAgainstFullRun(const ScheduleEditor& editor) {
    const Schedule& s = editor.schedule();
    const OpIndex index(s);
    const ListScheduleResult full = listSchedule(s, index, editor.costs());
    REQUIRE(full.complete() == editor.runs());
    if (!editor.runs()) {
        CHECK_FALSE(findProblems(s).empty());
        return;
    }
    for (int d = 0; d < s.devices; ++d)
        for (std::size_t i = 0; i < s.order[std::size_t(d)].size(); ++i) {
            INFO("device " << d << " position " << i << " "
                           << opName(s.order[std::size_t(d)][i], s.splitBackward));
            REQUIRE(editor.time(d, i).start == Approx(full.time(d, int(i)).start));
            REQUIRE(editor.time(d, i).end == Approx(full.time(d, int(i)).end));
        }
}

/// Repairs `editor`'s order and checks the outcome: moves exactly when it was broken, an order
/// that runs, validates and is timed as a full simulation. `wasBroken` says which it was.
std::vector<RepairMove> repairChecked(ScheduleEditor& editor, bool& wasBroken,
                                      RepairSearch* search = nullptr) {
    wasBroken = !editor.runs();
    std::vector<RepairMove> moves = repair(editor, search);
    CHECK(moves.empty() == !wasBroken);
    REQUIRE(editor.runs());
    CHECK(findProblems(editor.schedule()).empty());
    checkAgainstFullRun(editor);
    return moves;
}

} // namespace

TEST_CASE("Moves from 1F1B with a split backward reach ZB-H1's order and 27 units", "[edit]") {
    const EditList list = acceptanceList();
    REQUIRE(list.base.schedule == "1f1b");
    const Schedule base = loadEditBase(list.base, {});
    ScheduleEditor editor(base, unitCosts(base));
    CHECK(editor.makespan() == Approx(33)); // 1F1B: (m + p - 1)(F + B + W)

    std::vector<std::vector<Edit>> undo;
    for (const Edit& e : readListEdits(list, 1).edits) {
        const EditOutcome outcome = editor.apply(e);
        INFO(formatEdit(e, true));
        REQUIRE(editor.runs());
        undo.push_back(outcome.inverse);
    }
    const Schedule zbH1 = generateSchedule("zb-h1", list.base.params);
    CHECK(editor.schedule().order == zbH1.order);
    CHECK(editor.schedule().splitBackward);
    CHECK(editor.schedule().wholeBackward.empty());
    CHECK(editor.makespan() == Approx(27)); // ZB paper: 3m + (p - 1)(T_F + T_B - T_W) at unit costs
    CHECK(editor.makespan() == Approx(editor.timeline().makespan()));
    checkAgainstFullRun(editor);

    // Undo, newest first, restores the original exactly: order, form, timing.
    for (auto it = undo.rbegin(); it != undo.rend(); ++it) editor.applyAll(*it);
    CHECK(editor.schedule() == base);
    CHECK_FALSE(editor.schedule().splitBackward);
    CHECK(editor.makespan() == Approx(33));
    checkAgainstFullRun(editor);
}

TEST_CASE("An edit that creates a deadlock names the ring of waiting ops", "[edit]") {
    const Schedule base = generateSchedule("1f1b", {4, 8, 1});
    ScheduleEditor editor(base, unitCosts(base));
    const EditOutcome outcome = editor.apply(edit("move 0B0 before 0F2"));
    REQUIRE(outcome.broken.kind == BreakKind::Deadlock);
    const EditBreak& broken = editor.broken();
    REQUIRE(broken.waits.size() == 2);
    CHECK(broken.message ==
          "deadlock: devices wait on each other in a ring: device 0 waits at position 2 (0B0) for 1B0 at "
          "position 3 of device 1; device 1 waits at position 2 (1F2) for 0F2 at position 3 of device 0");
    CHECK(editor.makespan() == 0);
    // The validator finds the same deadlock in the order the editor now holds.
    const auto problems = findProblems(editor.schedule());
    REQUIRE_FALSE(problems.empty());
    CHECK(problems.front().id == "schedule.deadlock");
    // Its inverse mends it.
    editor.applyAll(outcome.inverse);
    CHECK(editor.runs());
    CHECK(editor.schedule() == base);
    CHECK(editor.makespan() == Approx(33)); // 1F1B: (m + p - 1)(F + B + W)
}

TEST_CASE("An edit that breaks a dependency names it", "[edit]") {
    Schedule base = generateSchedule("zb-h1", {4, 8, 1});
    ScheduleEditor editor(base, unitCosts(base));
    editor.apply(edit("move 1W3 before 1I3"));
    REQUIRE(editor.broken().kind == BreakKind::Dependency);
    CHECK(editor.broken().message ==
          "device 1 position 11: 1W3 runs before its dependency 1I3 at position 12 of the same device");
    const auto problems = findProblems(editor.schedule());
    REQUIRE_FALSE(problems.empty());
    CHECK(problems.front().id == "schedule.order");
    editor.apply(edit("shift 1W3 +1"));
    CHECK(editor.runs());
    checkAgainstFullRun(editor);
}

TEST_CASE("Edits that cannot apply are refused and change nothing", "[edit]") {
    const Schedule base = generateSchedule("zb-h1", {4, 8, 1});
    ScheduleEditor editor(base, unitCosts(base));
    auto refusal = [&](const std::string& text) { return refusalOf(editor, text); };
    CHECK(refusal("move 1W3 after 2F5") ==
          "edit.target | 1W3 runs on device 1, 2F5 on device 2: an op moves within its own device's order");
    CHECK(refusal("move 1W3 to 24") ==
          "edit.target | 1W3 cannot go to index 24: device 1 runs 24 ops (indices 0..23)");
    CHECK(refusal("move 1W9 to 0") ==
          "edit.op | op 1W9: the schedule has 1 pipe(s), stages 0..3 and micro-batches 0..7");
    CHECK(refusal("swap 1W3 1F6") ==
          "edit.target | swap 1W3 1F6: they are at device 1 position 15 and device 1 position 13; a swap "
          "trades two neighbours of one device");
    CHECK(refusal("merge 1B3") ==
          "edit.slot | merge 1B3: its W must come right after it (device 1 runs 1W3 at position 15); move it "
          "there first");
    CHECK(refusal("split 1F3") == "edit.op | split 1F3: only a backward (B) splits");
}

TEST_CASE("Split and merge keep whole backwards together and undo exactly", "[edit]") {
    const Schedule base = generateSchedule("1f1b", {4, 8, 1});
    ScheduleEditor editor(base, unitCosts(base));
    const EditOutcome split = editor.apply(edit("split 2B4"));
    CHECK(editor.schedule().splitBackward);
    CHECK(editor.schedule().wholeBackward.size() == 31); // every other backward stays whole
    checkAgainstFullRun(editor);
    try {
        editor.apply(edit("move 2W5 to 0"));
        FAIL("a W of a whole backward moved alone");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "edit.slot");
    }
    editor.apply(edit("shift 2W4 +1"));
    checkAgainstFullRun(editor);
    editor.apply(edit("shift 2W4 -1"));
    editor.applyAll(split.inverse);
    CHECK(editor.schedule() == base);

    const EditOutcome all = editor.apply(edit("split all"));
    CHECK(editor.schedule().wholeBackward.empty());
    // Each I passes its gradient on after 1 unit instead of 2: the split alone gains 3 units.
    CHECK(editor.makespan() == Approx(30));
    checkAgainstFullRun(editor);
    editor.applyAll(all.inverse);
    CHECK(editor.schedule() == base);
}

TEST_CASE("A micro-batch moves to the other pipe, re-timed exactly, and undo restores the order", "[edit]") {
    for (const char* name : {"chimera", "bitpipe"}) {
        INFO(name);
        // The registered schedule, eager gradient syncs and all, each sync taking time.
        const Schedule base = generateSchedule(name, {4, 8, 1});
        REQUIRE(base.pipes == 2);
        ScheduleEditor editor(base, unitCostsWithTail(base, 0.25, 0.5, 0));
        REQUIRE(editor.wholeRetime());
        std::vector<std::vector<Edit>> undo;
        for (const int mb : {0, 3, 6, 7}) { // 7 ends last: its pipe's syncs must follow it
            const Op f{OpKind::F, 0, 0, 0, mb};
            const int from = editor.find(f).valid() ? 0 : 1;
            const int to = 1 - from;
            const EditOutcome out =
                editor.apply(edit("pipe " + std::to_string(mb) + " to " + std::to_string(to)));
            undo.push_back(out.inverse);
            const Schedule& s = editor.schedule();
            // Every op of the micro-batch is on the new pipe, on the device that pipe places its stage.
            for (int stage = 0; stage < s.stagesPerPipe; ++stage)
                for (const OpKind kind : {OpKind::F, OpKind::B}) {
                    const OpRef at = editor.find(Op{kind, std::uint8_t(to), 0, stage, mb});
                    REQUIRE(at.valid());
                    CHECK(at.device == s.slot(to, stage).device);
                    CHECK(s.order[std::size_t(at.device)][std::size_t(at.index)].chunk ==
                          s.slot(to, stage).chunk);
                    CHECK_FALSE(editor.find(Op{kind, std::uint8_t(from), 0, stage, mb}).valid());
                }
            CHECK(out.retimed > 0);
            checkAgainstFullRun(editor);
            // At its old times on the other pipe's devices, the micro-batch's ops keep their
            // dependencies in order: the order runs (more micro-batches on one pipe take longer).
            CHECK(editor.runs());
            CHECK_NOTHROW(validate(s));
        }
        for (auto it = undo.rbegin(); it != undo.rend(); ++it) editor.applyAll(*it);
        CHECK(editor.schedule() == base);
        checkAgainstFullRun(editor);
    }
}

TEST_CASE("A pipe edit that cannot apply is refused and changes nothing", "[edit]") {
    const Schedule chimera = generateSchedule("chimera", {4, 8, 1});
    ScheduleEditor editor(chimera, unitCosts(chimera));
    const int pipeOfZero = editor.find(Op{OpKind::F, 0, 0, 0, 0}).valid() ? 0 : 1;
    auto refusal = [](ScheduleEditor& e, const std::string& text) { return refusalOf(e, text); };
    const std::string here = std::to_string(pipeOfZero);
    CHECK(refusal(editor, "pipe 0 to " + here) ==
          "edit.target | pipe 0 to " + here + ": micro-batch 0 runs on pipe " + here + " already");
    CHECK(refusal(editor, "pipe 8 to 1") == "edit.op | pipe 8 to 1: micro-batch 8 is not in 0..7");
    CHECK(refusal(editor, "pipe 0 to 2") == "edit.target | pipe 0 to 2: pipe 2 is not in 0..1");
    const Schedule one = generateSchedule("1f1b", {4, 8, 1});
    ScheduleEditor single(one, unitCosts(one));
    CHECK(refusal(single, "pipe 0 to 1") ==
          "edit.slot | pipe 0 to 1: schedule '1f1b' has one pipe; a micro-batch changes pipe in a schedule "
          "with two (Chimera, BitPipe)");
    // A backward that still runs whole (the others split) moves with its micro-batch only once split.
    const std::string b0 = (pipeOfZero == 0 ? "" : "p1:") + std::string("1B0");
    editor.apply(edit("split " + b0));
    const std::string message = refusal(
        editor, "pipe 1 to " + std::to_string(editor.find(Op{OpKind::F, 0, 0, 0, 1}).valid() ? 1 : 0));
    CHECK(message.find("as one whole backward: split") != std::string::npos);
    CHECK(message.rfind("edit.slot | pipe 1 to ", 0) == 0);
}

TEST_CASE("Incremental re-timing equals a full list scheduling after random moves", "[edit]") {
    struct Case {
        const char* name;
        ScheduleParams params;
        double comm;
    };
    const Case cases[] = {{"1f1b", {4, 8, 1}, 0},        {"zb-h1", {4, 8, 1}, 0.25},
                          {"interleaved", {4, 8, 2}, 0}, {"zb-v", {4, 8, 1}, 0.5},
                          {"v-1f1b", {4, 8, 1}, 0.1},    {"breadth-first", {3, 6, 2}, 0},
                          {"zb-h2", {5, 12, 1}, 0.2}};
    std::mt19937 random(24);
    for (const Case& c : cases) {
        INFO(c.name);
        const Schedule base = generateSchedule(c.name, c.params);
        ScheduleEditor editor(base, unitCosts(base, c.comm));
        checkAgainstFullRun(editor);
        if (!base.splitBackward) editor.apply(edit("split all")); // W ops to move
        std::vector<std::vector<Edit>> undo;
        int broken = 0;
        for (int step = 0; step < 300; ++step) {
            const Schedule& s = editor.schedule();
            const int d = int(random() % unsigned(s.devices));
            const auto& ops = s.order[std::size_t(d)];
            const Op op = ops[random() % ops.size()];
            // Mostly short moves, as a drag makes them; now and then a long one.
            const int span = step % 10 == 0 ? int(ops.size()) : 4;
            const std::int64_t by = std::int64_t(random() % unsigned(2 * span + 1)) - span;
            Edit e;
            e.kind = EditKind::Shift;
            e.op = op;
            e.index = by;
            try {
                undo.push_back(editor.apply(e).inverse);
            } catch (const ValidationError&) {
                continue; // off the end of the order
            }
            broken += editor.runs() ? 0 : 1;
            checkAgainstFullRun(editor);
            // Undo broken moves most of the time, so the walk stays near runnable orders.
            if (!editor.runs() && step % 3 != 0) {
                editor.applyAll(undo.back());
                undo.pop_back();
                checkAgainstFullRun(editor);
            }
        }
        CHECK(broken > 0); // the walk did break orders: those paths were checked too
        for (auto it = undo.rbegin(); it != undo.rend(); ++it) editor.applyAll(*it);
        CHECK(editor.runs());
        checkAgainstFullRun(editor);
    }
}

/// The editor's makespan and bubble equal the metrics of a full simulation of its order.
void checkMetricsAgainstSimulation(const ScheduleEditor& editor) {
    const Timeline timeline = editor.timeline();
    const OpCosts costs = editor.costs();
    const TimeMetrics metrics = computeTimeMetrics(editor.schedule(), timeline, &costs);
    CHECK(editor.makespan() == Approx(metrics.makespan));
    CHECK(editor.bubbleRatio() == Approx(metrics.bubbleRatio).margin(1e-12));
}

TEST_CASE("Orders with gradient syncs re-time as a full simulation after random moves of every kind",
          "[edit]") {
    struct Case {
        const char* name;
        ScheduleParams params;
    };
    // Chimera and BitPipe carry eager syncs; 1F1B gets one added per stage.
    const Case cases[] = {{"chimera", {4, 8, 1}}, {"bitpipe", {4, 8, 1}}, {"1f1b", {4, 8, 1}}};
    std::mt19937 random(2424);
    for (const Case& c : cases) {
        INFO(c.name);
        const Schedule base = generateSchedule(c.name, c.params);
        ScheduleEditor editor(base, unitCostsWithTail(base, 0.25, 1.5, 0.5));
        if (base.pipes == 1)
            for (int stage = 0; stage < base.stagesPerPipe; ++stage) {
                const std::string last = std::to_string(stage) + "B" + std::to_string(base.microbatches - 1);
                editor.apply(edit("add " + std::to_string(stage) + "SYNC after " + last));
                editor.apply(
                    edit("add " + std::to_string(stage) + "OPT after " + std::to_string(stage) + "SYNC"));
            }
        REQUIRE(editor.wholeRetime());
        REQUIRE(editor.runs());
        checkAgainstFullRun(editor);
        checkMetricsAgainstSimulation(editor);
        const Schedule start = editor.schedule();
        std::vector<std::vector<Edit>> undo;
        int broken = 0, tailMoves = 0;
        int otherKinds = 0;
        for (int step = 0; step < 150; ++step) {
            const Schedule& s = editor.schedule();
            const auto& ops = s.order[random() % unsigned(s.devices)];
            const Op op = ops[random() % ops.size()];
            Edit e;
            e.kind = EditKind::Shift;
            e.op = op;
            e.index = std::int64_t(random() % 9) - 4;
            // Now and then a split or merge of the op's backward, or its micro-batch onto the other
            // pipe, or a sync dropped or added back: each re-times whole, and undoes exactly.
            if (step % 10 == 5 && op.mb >= 0) {
                const std::string b = opName(Op{OpKind::B, op.pipe, 0, op.stage, op.mb}, false);
                const char* forms[] = {"split ", "merge ", "pipe "};
                const std::string form = forms[(step / 10) % (base.pipes == 2 ? 3 : 2)];
                e = form == "pipe "
                        ? edit("pipe " + std::to_string(op.mb) + " to " + std::to_string(1 - op.pipe))
                        : edit(form + b);
            } else if (step % 10 == 7 && !isComputeKind(op.kind)) {
                e = edit("drop " + opName(op, false));
            }
            try {
                undo.push_back(editor.apply(e).inverse);
            } catch (const ValidationError&) {
                continue;
            }
            tailMoves += isComputeKind(op.kind) ? 0 : 1;
            otherKinds += e.kind == EditKind::Shift ? 0 : 1;
            broken += editor.runs() ? 0 : 1;
            checkAgainstFullRun(editor);
            if (editor.runs()) checkMetricsAgainstSimulation(editor);
            if (!editor.runs() && step % 3 != 0) {
                editor.applyAll(undo.back());
                undo.pop_back();
            }
        }
        CHECK(broken > 0);
        CHECK(tailMoves > 0);
        CHECK(otherKinds > 0);
        for (auto it = undo.rbegin(); it != undo.rend(); ++it) editor.applyAll(*it);
        CHECK(editor.schedule() == start);
        checkAgainstFullRun(editor);
    }
}

TEST_CASE("A gradient sync is added, dropped and placed, and one before its backward is named", "[edit]") {
    const Schedule base = generateSchedule("1f1b", {4, 8, 1});
    ScheduleEditor editor(base, unitCostsWithTail(base, 0, 3, 0));
    CHECK_FALSE(editor.wholeRetime());
    const double plain = editor.makespan();
    // Stage 0's sync right after its last backward: device 0 ends last, so the collective (3
    // units) ends after everything else.
    const EditOutcome added = editor.apply(edit("add 0SYNC after 0B7"));
    REQUIRE(added.inverse.size() == 1);
    CHECK(formatEdit(added.inverse[0], false) == "drop 0SYNC");
    CHECK(editor.wholeRetime());
    REQUIRE(editor.runs());
    CHECK(editor.makespan() == Approx(plain + 3));
    CHECK(editor.bubbleRatio() == Approx(1 - 4 * 8 * 3.0 / (4 * (plain + 3)))); // the sync is not busy time
    checkAgainstFullRun(editor);
    checkMetricsAgainstSimulation(editor);
    // Posted one place earlier, it runs before the backward it reduces: named, and undone.
    const EditOutcome early = editor.apply(edit("shift 0SYNC -1"));
    CHECK(early.broken.kind == BreakKind::Dependency);
    CHECK(early.broken.message ==
          "device 0 position 15: 0SYNC runs before its dependency 0B7 at position 16 of the same device");
    editor.applyAll(early.inverse);
    CHECK(editor.runs());
    // Dropped, the order is the compute order again and re-times incrementally.
    const EditOutcome dropped = editor.apply(edit("drop 0SYNC"));
    CHECK(formatEdit(dropped.inverse[0], false) == "add 0SYNC to 16");
    CHECK(editor.schedule() == base);
    CHECK_FALSE(editor.wholeRetime());
    CHECK(editor.makespan() == Approx(plain));
    editor.applyAll(dropped.inverse);
    CHECK(editor.find(parseEdit("drop 0SYNC").op) == OpRef{0, 16});
    // What cannot be added or dropped is refused, naming why.
    auto refusal = [&](const std::string& text) { return refusalOf(editor, text); };
    CHECK(refusal("add 0SYNC to 3") ==
          "edit.target | add 0SYNC to 3: device 0 runs it already, at position 16 "
          "(move it instead)");
    CHECK(refusal("add 1F3 to 0") ==
          "edit.op | add 1F3 to 0: only a gradient sync (as 2SYNC) or an optimizer step (as 2OPT) is added; "
          "compute ops move");
    CHECK(
        refusal("add 1SYNC after 0B7") ==
        "edit.target | add 1SYNC after 0B7: 1SYNC runs on device 1 (the device of stage 1 of pipe 0), 0B7 on "
        "device 0");
    CHECK(refusal("add 1SYNC to 17") ==
          "edit.target | add 1SYNC to 17: device 1 runs 16 ops: an added op goes to an index 0..16");
    CHECK(refusal("add 4SYNC to 0") ==
          "edit.op | add 4SYNC to 0: the schedule has 1 pipe(s) and stages 0..3");
    CHECK(refusal("drop 1SYNC") ==
          "edit.op | op 1SYNC: the order holds no such op (the iteration tail adds it when the order is "
          "simulated); add it with 'add 1SYNC after OP'");
    CHECK(refusal("drop 1F0") ==
          "edit.op | drop 1F0: only a gradient sync (as 2SYNC) or an optimizer step (as "
          "2OPT) is dropped; compute ops stay in the order");
}

TEST_CASE("A move re-times only the ops whose times it changes", "[edit]") {
    const Schedule base = generateSchedule("zb-h1", {8, 32, 1});
    ScheduleEditor editor(base, unitCosts(base));
    // The last two W of the last device: nothing waits on them.
    const auto& last = editor.schedule().order[7];
    const EditOutcome late =
        editor.apply(edit("swap " + opName(last[last.size() - 2], true) + " " + opName(last.back(), true)));
    CHECK(late.retimed <= 3);
    // Device 0's first W one place later: it fills the same time, only its neighbours are looked at.
    const EditOutcome early = editor.apply(edit("shift 0W0 +1"));
    CHECK(early.retimed < 20);
    // Micro-batch 1's forward before micro-batch 0's: micro-batch 0 and all that follows it shift.
    const EditOutcome first = editor.apply(edit("swap 0F0 0F1"));
    CHECK(first.retimed > 500);
    CHECK(first.retimed < editor.schedule().opCount() * 2);
    checkAgainstFullRun(editor);
}

TEST_CASE("Fill bubbles slides W into idle time: nothing later, no more memory, moves listed", "[edit]") {
    // ZB-H1 with every W of the last three devices at the end of their orders: the cool-down
    // bubbles ZB-H1 fills with W are idle again.
    Schedule base = generateSchedule("zb-h1", {4, 8, 1});
    ScheduleEditor editor(base, unitCosts(base));
    for (int d = 1; d < 4; ++d)
        for (int mb = 7; mb >= 0; --mb)
            editor.apply(edit("move " + std::to_string(d) + "W" + std::to_string(mb) + " to 23"));
    for (int d = 1; d < 4; ++d) // W0..W7 in order at the end
        for (int mb = 0; mb < 8; ++mb)
            editor.apply(edit("move " + std::to_string(d) + "W" + std::to_string(mb) + " to 23"));
    REQUIRE(editor.runs());
    const Schedule before = editor.schedule();
    const double makespan = editor.makespan();
    const MemoryInputs memory = unitMemoryInputs(before);
    auto peak = [&](const ScheduleEditor& e) {
        double most = 0;
        for (const auto& d :
             computeMemory(e.schedule(), e.timeline(), memory, MemoryDetail::PeaksOnly).devices)
            most = std::max(most, d.peakBytes);
        return most;
    };
    const double peakBefore = peak(editor);

    const std::vector<Edit> moves = fillBubbles(editor);
    REQUIRE_FALSE(moves.empty());
    CHECK(editor.runs());
    CHECK(editor.makespan() < makespan);
    CHECK(peak(editor) <= peakBefore);
    checkAgainstFullRun(editor);
    for (const Edit& move : moves) {
        CHECK(move.kind == EditKind::Move);
        CHECK(move.op.kind == OpKind::W);
    }
    // The listed moves replay to the same order.
    ScheduleEditor replay(before, unitCosts(before));
    replay.applyAll(moves);
    CHECK(replay.schedule().order == editor.schedule().order);
    // Nothing left to fill: a second pass moves nothing.
    CHECK(fillBubbles(editor).empty());
}

TEST_CASE("Compact and fill bubbles never start an op later, on orders a random walk messed up", "[edit]") {
    std::mt19937 random(7);
    std::size_t moved[2] = {0, 0}; // by fill bubbles, by compact
    // Chimera and BitPipe with their eager syncs, each taking time: syncs are not pulled into
    // gaps (they take no device time), and the gaps are the compute ops' own.
    for (const char* name : {"1f1b", "zb-h1", "interleaved", "zb-v", "chimera", "bitpipe"}) {
        INFO(name);
        const bool twoPipes = std::string(name) == "chimera" || std::string(name) == "bitpipe";
        const Schedule base = generateSchedule(name, {4, 8, twoPipes ? 1 : 2});
        const auto costsOf = [](const Schedule& s) { return unitCostsWithTail(s, 0.25, 1.5, 0); };
        ScheduleEditor editor(base, costsOf(base));
        if (!base.splitBackward) editor.apply(edit("split all"));
        for (int step = 0; step < 60; ++step) {
            try {
                const EditOutcome outcome = editor.apply(randomShift(editor.schedule(), random, 3));
                if (!editor.runs()) editor.applyAll(outcome.inverse);
            } catch (const ValidationError&) {
            }
        }
        REQUIRE(editor.runs());
        for (const bool all : {false, true}) {
            const Schedule before = editor.schedule();
            std::unordered_map<std::uint64_t, double> startOf;
            for (int d = 0; d < before.devices; ++d)
                for (std::size_t i = 0; i < before.order[std::size_t(d)].size(); ++i)
                    startOf[opIdentity(before.order[std::size_t(d)][i])] = editor.time(d, i).start;
            const double makespan = editor.makespan();
            const std::vector<Edit> moves = all ? compact(editor) : fillBubbles(editor);
            moved[all ? 1 : 0] += moves.size();
            REQUIRE(editor.runs());
            CHECK(editor.makespan() <= makespan + 1e-9);
            for (int d = 0; d < before.devices; ++d)
                for (std::size_t i = 0; i < editor.schedule().order[std::size_t(d)].size(); ++i)
                    CHECK(editor.time(d, i).start <=
                          startOf.at(opIdentity(editor.schedule().order[std::size_t(d)][i])) + 1e-9);
            checkAgainstFullRun(editor);
            ScheduleEditor replay(before, costsOf(before));
            replay.applyAll(moves);
            CHECK(replay.schedule().order == editor.schedule().order);
        }
    }
    CHECK(moved[0] > 0); // both helpers had gaps to fill
    CHECK(moved[1] > 0);
}

TEST_CASE("Repair: a valid order needs no move", "[edit][repair]") {
    for (const char* name : {"1f1b", "zb-h1", "interleaved", "zb-v"}) {
        INFO(name);
        const Schedule base = generateSchedule(name, {4, 8, 2});
        ScheduleEditor editor(base, unitCosts(base));
        CHECK(repair(editor).empty());
        CHECK(editor.schedule() == base);
    }
}

TEST_CASE("Repair mends a deadlock ring and a broken dependency in one move each, saying why",
          "[edit][repair]") {
    const Schedule f1b = generateSchedule("1f1b", {4, 8, 1});
    ScheduleEditor ring(f1b, unitCosts(f1b));
    ring.apply(edit("move 0B0 before 0F2"));
    REQUIRE(ring.broken().kind == BreakKind::Deadlock);
    const std::vector<RepairMove> ringMoves = repair(ring);
    REQUIRE(ringMoves.size() == 1);
    // Device 1 runs 1B0 before its third forward: the ring is gone (not the order before the edit,
    // but one move from the broken one, as the move back would be).
    CHECK(formatEdit(ringMoves[0].edit, false) == "move 1B0 before 1F2");
    CHECK(ringMoves[0].reason ==
          "device 0 is stuck at position 2: 0B0 waits for 1B0 at position 3 of device 1, "
          "which has not run; 1B0 can run now: moved before 1F2, where device 1 is stuck");
    CHECK(ring.runs());
    CHECK(findProblems(ring.schedule()).empty());
    checkAgainstFullRun(ring);

    const Schedule zb = generateSchedule("zb-h1", {4, 8, 1});
    ScheduleEditor dependency(zb, unitCosts(zb));
    dependency.apply(edit("move 1W3 before 1I3"));
    REQUIRE(dependency.broken().kind == BreakKind::Dependency);
    const std::vector<RepairMove> moves = repair(dependency);
    REQUIRE(moves.size() == 1);
    CHECK(formatEdit(moves[0].edit, true) == "move 1I3 before 1W3");
    CHECK(moves[0].reason ==
          "device 1 is stuck at position 11: 1W3 waits for 1I3 at position 12 of the same "
          "device, which has not run; 1I3 can run now: moved before 1W3, where device 1 is "
          "stuck");
    CHECK(dependency.runs());
    CHECK(findProblems(dependency.schedule()).empty());
    checkAgainstFullRun(dependency);
}

TEST_CASE("Repair makes every order that random moves broke run, timed as a full simulation",
          "[edit][repair]") {
    struct Case {
        const char* name;
        ScheduleParams params;
        const char* first; ///< an edit before the random moves ("" none)
    };
    // 1F1B with one backward split: every other backward is whole and moves only as a pair.
    const Case cases[] = {{"1f1b", {4, 8, 1}, ""},  {"gpipe", {4, 6, 1}, ""},
                          {"zb-h1", {4, 8, 1}, ""}, {"interleaved", {4, 8, 2}, ""},
                          {"zb-v", {4, 8, 1}, ""},  {"1f1b", {4, 8, 1}, "split 1B3"},
                          {"zb-h2", {5, 12, 1}, ""}};
    std::mt19937 random(2024);
    std::size_t broken = 0, breakingMoves = 0, repairMoves = 0, splits = 0, greedyMoves = 0, proven = 0,
                fewer = 0;
    for (const Case& c : cases) {
        const Schedule base = generateSchedule(c.name, c.params);
        for (int trial = 0; trial < 40; ++trial) {
            INFO(c.name << " " << c.first << " trial " << trial);
            ScheduleEditor editor(base, unitCosts(base, 0.25));
            std::vector<Edit> applied;
            if (*c.first) applied.push_back(edit(c.first));
            editor.applyAll(applied);
            const int count = 1 + trial % 5;
            for (int k = 0; k < count; ++k) {
                const Schedule& s = editor.schedule();
                const int d = int(random() % unsigned(s.devices));
                const auto& ops = s.order[std::size_t(d)];
                Edit e;
                e.kind = EditKind::Move;
                e.op = ops[random() % ops.size()];
                e.index = std::int64_t(random() % ops.size());
                try {
                    editor.apply(e);
                    applied.push_back(e);
                } catch (const ValidationError&) { // into or out of a whole backward: refused
                }
            }
            bool wasBroken = false;
            RepairSearch search;
            const std::vector<RepairMove> moves = repairChecked(editor, wasBroken, &search);
            CHECK(moves.size() <= 2 * editor.schedule().opCount());
            CHECK(moves.size() <= search.greedyMoves); // the search never makes more
            if (wasBroken) {
                ++broken;
                breakingMoves += applied.size() - (*c.first ? 1 : 0);
                repairMoves += moves.size();
                greedyMoves += search.greedyMoves;
                proven += search.fewest ? 1 : 0;
                fewer += moves.size() < search.greedyMoves ? 1 : 0;
            }
            // The listed moves replay: from the base, the random moves and then the repair's.
            ScheduleEditor replay(base, unitCosts(base, 0.25));
            replay.applyAll(applied);
            for (const RepairMove& m : moves) {
                CHECK_FALSE(m.reason.empty());
                splits += m.edit.kind == EditKind::Split ? 1 : 0;
                replay.apply(m.edit);
            }
            CHECK(replay.runs());
            CHECK(replay.schedule().order == editor.schedule().order);
        }
    }
    CHECK(broken > 50); // the random moves did break orders
    // Not a proof of fewest moves: the greedy's total against the random moves that broke them.
    INFO("repaired " << broken << " broken orders with " << repairMoves << " moves (" << splits
                     << " splits; the greedy alone " << greedyMoves << ", the search found fewer for "
                     << fewer << " orders and proved " << proven << " fewest); the random moves were "
                     << breakingMoves);
    // When written: 230 orders, the greedy 588 moves, the search fewer for 58 orders (486 moves in
    // all) and the fewest proven for all 230; the random moves were 705.
    CHECK(repairMoves <= breakingMoves);
    CHECK(fewer > 0);
    CHECK(proven == broken);
}

TEST_CASE("Repair's search finds one move where the greedy made two, and says it is the fewest",
          "[edit][repair]") {
    const Schedule base = generateSchedule("1f1b", {4, 8, 1});
    ScheduleEditor editor(base, unitCosts(base, 0.25));
    editor.apply(edit("move 0B3 to 0")); // device 0 would wait at 0B3 for 1B3, which waits for 0F3
    REQUIRE_FALSE(editor.runs());
    RepairSearch search;
    const std::vector<RepairMove> moves = repair(editor, &search);
    CHECK(search.greedyMoves == 2);
    CHECK(search.fewest);
    CHECK(search.steps > 0);
    REQUIRE(moves.size() == 1);
    CHECK(formatEdit(moves[0].edit, false) == "move 0B3 after 0F7");
    CHECK(moves[0].reason ==
          "0B3 moved after 0F7: this one move makes the order run (searched: with fewer ops "
          "moved and the others kept in their order, some device waits forever)");
    CHECK(editor.runs());
    checkAgainstFullRun(editor);
    // Four random-looking moves on ZB-H1 at p = 32, m = 256 (24,576 ops): the greedy makes 7 moves,
    // the search proves 4 the fewest within its cap.
    const Schedule big = generateSchedule("zb-h1", {32, 256, 1});
    ScheduleEditor large(big, unitCosts(big, 0.25));
    large.applyAll(
        {edit("move 5F3 to 300"), edit("move 9W100 to 2"), edit("move 20B7 to 0"), edit("move 3F40 to 5")});
    REQUIRE_FALSE(large.runs());
    CHECK(repair(large, &search).size() == 4);
    CHECK(search.greedyMoves == 7);
    CHECK(search.fewest);
    CHECK(large.runs());
    // A valid order: nothing to search, zero moves are the fewest.
    ScheduleEditor valid(base, unitCosts(base));
    CHECK(repair(valid, &search).empty());
    CHECK(search.fewest);
    CHECK(search.greedyMoves == 0);
}

TEST_CASE("The replicas of a stage sync together: a sync dropped or added takes its replicas' along",
          "[edit]") {
    const Schedule base = generateSchedule("chimera", {4, 8, 1});
    ScheduleEditor editor(base, unitCostsWithTail(base, 0.25, 1, 0));
    // Stage 3 of pipe 1 (device 0) and stage 3 of pipe 0 (device 3) sync in one collective.
    const EditOutcome dropped = editor.apply(edit("drop p1:3SYNC"));
    CHECK_FALSE(editor.find(parseEdit("drop p1:3SYNC").op).valid());
    CHECK_FALSE(editor.find(parseEdit("drop 3SYNC").op).valid());
    CHECK(dropped.broken.kind == BreakKind::None);
    CHECK(findProblems(editor.schedule()).empty()); // the validator's rule holds
    checkAgainstFullRun(editor);
    // Undo adds the first back (its replica's comes along) and moves the other to its place.
    CHECK(formatEdits(dropped.inverse, false) == "add p1:3SYNC to 15; move 3SYNC to 15");
    editor.applyAll(dropped.inverse);
    CHECK(editor.schedule() == base);
    // Added after the stage's last backward of pipe 1, pipe 0's sync goes after its own.
    editor.apply(edit("drop 3SYNC"));
    const EditOutcome added = editor.apply(edit("add p1:3SYNC after p1:3B7"));
    CHECK(formatEdits(added.inverse, false) == "drop p1:3SYNC");
    const OpRef replica = editor.find(parseEdit("drop 3SYNC").op);
    REQUIRE(replica.valid());
    CHECK(editor.schedule().order[3][std::size_t(replica.index) - 1] == parseEdit("drop 3B5").op);
    CHECK(findProblems(editor.schedule()).empty());
    checkAgainstFullRun(editor);
}

TEST_CASE("Repair mends orders with gradient syncs and optimizer steps that random moves broke",
          "[edit][repair]") {
    std::mt19937 random(77);
    std::size_t broken = 0, tailMoves = 0;
    for (const char* name : {"chimera", "bitpipe", "1f1b"}) {
        Schedule base = generateSchedule(name, {4, 8, 1});
        // 1F1B with every stage's sync posted eagerly and its optimizer step at the device's end.
        std::vector<Edit> tail;
        if (base.pipes == 1)
            for (int stage = 0; stage < base.stagesPerPipe; ++stage) {
                const std::string s = std::to_string(stage);
                tail.push_back(edit("add " + s + "SYNC after " + s + "B7"));
                tail.push_back(edit("add " + s + "OPT after " + s + "SYNC"));
            }
        for (int trial = 0; trial < 30; ++trial) {
            INFO(name << " trial " << trial);
            ScheduleEditor editor(base, unitCostsWithTail(base, 0.25, 2, 1));
            std::vector<Edit> applied = tail;
            editor.applyAll(applied);
            for (int k = 0; k < 1 + trial % 4; ++k) {
                const auto& ops = editor.schedule().order[random() % unsigned(editor.schedule().devices)];
                // Every other move takes a sync or step, the ops this repair places.
                std::vector<Op> tails;
                for (const Op& op : ops)
                    if (!isComputeKind(op.kind)) tails.push_back(op);
                Edit e;
                e.kind = EditKind::Move;
                e.op = k % 2 == 0 && !tails.empty() ? tails[random() % tails.size()]
                                                    : ops[random() % ops.size()];
                e.index = std::int64_t(random() % ops.size());
                try {
                    editor.apply(e);
                    applied.push_back(e);
                } catch (const ValidationError&) {
                }
            }
            bool wasBroken = false;
            const std::vector<RepairMove> moves = repairChecked(editor, wasBroken);
            broken += wasBroken ? 1 : 0;
            ScheduleEditor replay(base, unitCostsWithTail(base, 0.25, 2, 1));
            replay.applyAll(applied);
            for (const RepairMove& m : moves) {
                CHECK_FALSE(m.reason.empty());
                tailMoves += isComputeKind(m.edit.op.kind) ? 0 : 1;
                replay.apply(m.edit);
            }
            CHECK(replay.schedule().order == editor.schedule().order);
        }
    }
    CHECK(broken > 20);
    CHECK(tailMoves > 0); // syncs or steps were placed by the repair
}

namespace {

/// Unit costs whose slices differ, as causal attention makes them: slice q of k costs
/// (0.5 + q) / (k / 2) of the mean slice for every kind and stage.
OpCosts unevenSliceCosts(const Schedule& s) {
    OpCosts costs = unitCosts(s);
    const int k = s.sequenceSlices;
    costs.slices = k;
    const std::size_t slots = std::size_t(s.pipes) * std::size_t(s.stagesPerPipe);
    for (const OpKind kind : {OpKind::F, OpKind::B, OpKind::W}) {
        auto& scale = costs.sliceScale[std::size_t(kind)];
        for (std::size_t slot = 0; slot < slots; ++slot)
            for (int q = 0; q < k; ++q)
                scale.push_back((0.5 + q) / (double(k) / 2) * (kind == OpKind::W ? 0.8 : 1.0));
    }
    return costs;
}

} // namespace

TEST_CASE("Sequence slices: edits name a slice, uneven slices re-time as a full simulation", "[edit]") {
    // Seq1F1B at p = 4, m = 4, k = 2 and TeraPipe at p = 3, m = 2, k = 3: units are micro-batch x
    // slices + slice, named "2F3.1"; a slice's F waits for the previous slice's, its B for the next's.
    for (const auto& [name, params] : {std::pair{"seq1f1b", ScheduleParams{4, 4, 1, 2}},
                                       std::pair{"terapipe", ScheduleParams{3, 2, 1, 3}}}) {
        INFO(name);
        const Schedule base = generateSchedule(name, params);
        const int k = base.sequenceSlices;
        REQUIRE(k == params.slices);
        ScheduleEditor editor(base, unevenSliceCosts(base));
        checkAgainstFullRun(editor);
        checkMetricsAgainstSimulation(editor);
        const double before = editor.makespan();
        ScheduleEditor even(base, unitCosts(base));
        CHECK(before != Approx(even.makespan())); // the slices' costs are in the timing

        // Names: with the slice, read and written back; without, refused naming the slices.
        const Edit split = parseEdit("split 1B1.0", "edit", k);
        CHECK(split.op.mb == k);
        CHECK(formatEdit(split, base) == "split 1B1.0");
        editor.apply(split);
        CHECK(formatEdit(editor.apply(parseEdit("split all", "edit", k)).inverse.front(), editor.schedule())
                  .starts_with("merge "));
        checkAgainstFullRun(editor);
        try {
            parseEdit("move 1W1 after 1F1.0", "edit", k);
            FAIL("accepted");
        } catch (const ParseError& e) {
            CHECK(std::string(e.what()).find("'1W1': the schedule cuts each micro-batch into " +
                                             std::to_string(k) +
                                             " sequence slices, so an edit names one: 1W1.0 .. 1W1." +
                                             std::to_string(k - 1)) != std::string::npos);
        }
        CHECK_THROWS_AS(parseEdit("split 1B1.0"), ParseError); // a schedule without slices
        CHECK(refusalOf(editor, "move 1W9.0 to 0")
                  .starts_with("edit.op | op 1W9.0: the schedule has 1 pipe(s), "
                               "stages 0.."));

        // A slice's forward moved before the previous slice's breaks the slices' order, by name.
        const Op f0{OpKind::F, 0, 0, 0, 0}, f1{OpKind::F, 0, 0, 0, 1};
        Edit early;
        early.kind = EditKind::Move;
        early.op = f1;
        early.anchor = MoveAnchor::Before;
        early.other = f0;
        const EditOutcome out = editor.apply(early);
        REQUIRE(editor.broken().kind == BreakKind::Dependency);
        CHECK(editor.broken().message.find("0F0.1 runs before its dependency 0F0.0") != std::string::npos);
        editor.applyAll(out.inverse);
        CHECK(editor.runs());

        // Random moves: every op's times equal a full list scheduling with the uneven slices.
        std::mt19937 random(28);
        int broken = 0;
        for (int step = 0; step < 200; ++step) {
            EditOutcome moved;
            try {
                moved = editor.apply(randomShift(editor.schedule(), random, 4));
            } catch (const ValidationError&) {
                continue;
            }
            broken += editor.runs() ? 0 : 1;
            checkAgainstFullRun(editor);
            if (!editor.runs()) editor.applyAll(moved.inverse);
        }
        CHECK(broken > 0);
        CHECK(editor.runs());
        checkMetricsAgainstSimulation(editor);
    }
}

TEST_CASE("An edit list on a sliced base reads its slice names against the base", "[edit]") {
    EditBase base;
    base.schedule = "seq1f1b";
    base.params = {4, 4, 1, 2};
    const std::string json = editListToJson(base, {"split all", "move 3W3.1 after 3I3.0"});
    const EditList list = parseEditList(json, "list.json");
    const Schedule schedule = loadEditBase(list.base, {});
    const ListedEdits listed = readListEdits(list, schedule.sequenceSlices);
    REQUIRE(listed.edits.size() == 2);
    CHECK(listed.edits[1].op == Op{OpKind::W, 0, 0, 3, 7});
    CHECK(listed.texts[1] == "move 3W3.1 after 3I3.0");
    ScheduleEditor editor(schedule, unitCosts(schedule));
    editor.applyAll(listed.edits);
    CHECK(editor.runs());
    checkAgainstFullRun(editor);
    // Read as a schedule without slices, the slice is refused with the edit's field.
    try {
        readListEdits(list, 1);
        FAIL("accepted");
    } catch (const ValidationError& e) {
        CHECK(e.field() == "edits[1]");
        CHECK(e.message().find("the schedule cuts no micro-batch into sequence slices") != std::string::npos);
    }
}
