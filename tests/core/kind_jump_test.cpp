// kindJump: the window's Alt+Up / Alt+Down. The op passes the run of one kind next to it, so its
// new neighbour on that side is of another kind; a whole backward is one unit of kind B.
#include "edit/kind_jump.h"
#include "error.h"
#include "generators/registry.h"
#include "ir/op_name.h"

#include <catch2/catch.hpp>

namespace {

using namespace stagecraft;

OpCosts unitCosts(const Schedule& s) {
    Schedule split = s;
    split.splitBackward = true;
    return fullStageCosts(split, 1, 1, 1);
}

Op op(const char* name) {
    return *parseOpName(name);
}

} // namespace

TEST_CASE("kindJump passes the run of forwards next to an op", "[edit]") {
    const Schedule zb = generateSchedule("zb-h1", {4, 8, 1});
    ScheduleEditor editor(zb, unitCosts(zb));
    // Device 0 warms up with 0F0 0F1 0F2 0F3, then its first backward.
    const Edit later = kindJump(editor, op("0F0"), true);
    CHECK(later.kind == EditKind::Shift);
    CHECK(later.index == 3);
    CHECK(kindJump(editor, op("0F3"), false).index == -3);
    // 0F1 is among forwards: later it passes 0F2 and 0F3 (the run of F after it).
    CHECK(kindJump(editor, op("0F1"), true).index == 2);
}

TEST_CASE("kindJump's new neighbour has another kind, and only that kind was passed", "[edit]") {
    const std::pair<const char*, int> schedules[] = {
        {"zb-h1", 1}, {"1f1b", 1}, {"interleaved", 2}, {"zb-v", 2}};
    for (const auto& [name, chunks] : schedules) {
        Schedule s = generateSchedule(name, {4, 8, chunks});
        ScheduleEditor editor(s, unitCosts(s));
        if (!s.splitBackward) editor.apply(parseEdit("split all"));
        const Schedule& now = editor.schedule();
        for (int d = 0; d < now.devices; ++d) {
            const std::vector<Op> ops = now.order[std::size_t(d)];
            for (std::size_t i = 0; i < ops.size(); ++i)
                for (bool later : {true, false}) {
                    INFO(name << " " << opName(ops[i], true) << (later ? " later" : " earlier"));
                    if ((later && i + 1 == ops.size()) || (!later && i == 0)) {
                        CHECK_THROWS_AS(kindJump(editor, ops[i], later), ValidationError);
                        continue;
                    }
                    const Edit jump = kindJump(editor, ops[i], later);
                    const std::int64_t j = std::int64_t(i) + jump.index;
                    REQUIRE(j >= 0);
                    REQUIRE(std::size_t(j) < ops.size());
                    const OpKind passed = ops[later ? i + 1 : i - 1].kind;
                    const std::size_t lo = later ? i + 1 : std::size_t(j),
                                      hi = later ? std::size_t(j) : i - 1;
                    for (std::size_t k = lo; k <= hi; ++k) CHECK(ops[k].kind == passed);
                    const std::int64_t beyond = later ? j + 1 : j - 1;
                    if (beyond >= 0 && std::size_t(beyond) < ops.size())
                        CHECK(ops[std::size_t(beyond)].kind != passed);
                }
        }
    }
}

TEST_CASE("kindJump counts a whole backward as one B and never splits it", "[edit]") {
    const Schedule f1b = generateSchedule("1f1b", {4, 8, 1});
    ScheduleEditor editor(f1b, unitCosts(f1b));
    // Device 3 runs F0 B0 F1 B1 F2 ...; split only B0: the other backwards run whole (B then W).
    editor.apply(parseEdit("split 3B0"));
    REQUIRE(editor.isWhole(op("3B1")));
    // Before 3F1 is 3W0 alone (split): a run of one W.
    CHECK(kindJump(editor, op("3F1"), false).index == -1);
    // Before 3F2 is 3B1 with its W: one unit of kind B, then 3F1: 3F2 passes both ops of it.
    CHECK(kindJump(editor, op("3F2"), false).index == -2);
    // Later, 3F1 passes the whole backward 3B1 + 3W1 and stops before 3F2.
    CHECK(kindJump(editor, op("3F1"), true).index == 2);
    const Edit jump = kindJump(editor, op("3F1"), true);
    CHECK(editor.apply(jump).broken.kind != BreakKind::None); // F1 after its own backward: named
}

TEST_CASE("kindJump names what it cannot do", "[edit]") {
    const Schedule zb = generateSchedule("zb-h1", {4, 8, 1});
    ScheduleEditor editor(zb, unitCosts(zb));
    try {
        kindJump(editor, op("0F0"), false);
        FAIL("no error");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "edit.target");
        CHECK(std::string(e.message()) ==
              "0F0 is the first op of device 0: there is nothing before it to jump over");
    }
    CHECK_THROWS_AS(kindJump(editor, op("0F9"), true), ValidationError);
}
