// Recompute (R) in the IR: its name, its dependencies (ir/stage_flow.h, the op index) and the
// validator's rules for it (docs/recompute.md).
#include "error.h"
#include "generators/registry.h"
#include "ir/action.h"
#include "ir/op_index.h"
#include "ir/op_label.h"
#include "ir/op_name.h"
#include "ir/stage_flow.h"
#include "validate/validator.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

/// Position of `kind` (stage, mb) in device `d`'s order; -1 when absent.
int positionOf(const Schedule& s, int d, OpKind kind, int stage, int mb) {
    const auto& ops = s.order[std::size_t(d)];
    for (std::size_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == kind && ops[i].stage == stage && ops[i].mb == mb) return int(i);
    return -1;
}

bool hasProblem(const std::vector<Problem>& problems, const std::string& id, const std::string& text) {
    return std::any_of(problems.begin(), problems.end(), [&](const Problem& p) {
        return p.id == id && p.message.find(text) != std::string::npos;
    });
}

} // namespace

TEST_CASE("a recompute is named like an action with R, and read back", "[recompute][op_name]") {
    CHECK(std::string(opKindName(OpKind::R)) == "R");
    CHECK(std::string(opKindLetter(OpKind::R)) == "R");
    const Op r{OpKind::R, 0, 0, 2, 3};
    CHECK(opName(r, false) == "2R3");
    CHECK(opName(r, true) == "2R3");
    CHECK(opName(Op{OpKind::R, 1, 0, 3, 12}, false) == "p1:3R12");
    CHECK(opLabel(ChunkShape{1, 4, 1}, r) == "R3");
    CHECK(cellOpLabel(r) == "3");
    for (const Op& op : {r, Op{OpKind::R, 1, 0, 3, 12}}) {
        const auto back = parseOpName(opName(op, false));
        REQUIRE(back);
        CHECK(*back == op);
    }
    CHECK(isRecomputeName(" 2R3 "));
    CHECK_FALSE(isRecomputeName("2F3"));
    CHECK_FALSE(isRecomputeName("2SYNC"));
    // torch's own names that start like one are no recompute.
    CHECK_FALSE(isRecomputeName("0RESHARD"));
    CHECK_FALSE(isRecomputeName("0RECV_F1"));
    CHECK_FALSE(isRecomputeName("2R"));
    std::string why;
    CHECK_FALSE(parseOpName("2R99999999999", &why));
    CHECK(why ==
          "'2R99999999999': a recompute is '<stage>R<micro-batch>', with 'p1:' in front for the second "
          "pipe, as in '2R0' or 'p1:3R2'");
    CHECK_FALSE(parseAction("0RESHARD", &why));
    CHECK(why ==
          "'0RESHARD': 'R' is not a compute action type; expected F, I, B or W after the stage number");
    // torch's grammar has no R: its reader says so rather than "not an action type".
    CHECK_FALSE(parseAction("2R3", &why));
    CHECK(why ==
          "'2R3': torch's action set has no recompute (R); schedules with recompute ops are written as "
          "Stagecraft JSON");
    CHECK_THROWS_AS(actionOf(r, false), std::logic_error);
}

TEST_CASE("R follows its F, and B follows R only where the stage recomputes", "[recompute][stage_flow]") {
    CHECK(localProducer(OpKind::R, false) == OpKind::F);
    CHECK(localProducer(OpKind::R, true) == OpKind::F);
    CHECK(localProducer(OpKind::B, true) == OpKind::R);
    CHECK(localProducer(OpKind::B, false) == OpKind::F);
    CHECK(localProducer(OpKind::W, true) == OpKind::B);
    CHECK_FALSE(localProducer(OpKind::F, true));
    CHECK(producerStage(OpKind::R, 1, 4) == -1); // R takes nothing from another stage
    CHECK(flowStep(OpKind::R) == 0);

    Schedule s = generateSchedule("1f1b", {4, 4, 1});
    // Recompute only (stage 2, mb 1): R right before its B on device 2.
    auto& ops = s.order[2];
    const int b = positionOf(s, 2, OpKind::B, 2, 1);
    ops.insert(ops.begin() + b, Op{OpKind::R, 0, 0, 2, 1});
    validate(s);
    const OpIndex index(s);
    CHECK(index.recomputed(0, 2, 1));
    CHECK_FALSE(index.recomputed(0, 2, 0));
    auto gid = [&](OpKind kind, int stage, int mb) { return index.globalId(index.find(kind, 0, stage, mb)); };
    CHECK(index.depsOf(gid(OpKind::R, 2, 1)).first == std::int32_t(gid(OpKind::F, 2, 1)));
    CHECK(index.depsOf(gid(OpKind::R, 2, 1)).second == OpDeps::kNone);
    CHECK(index.depsOf(gid(OpKind::B, 2, 1)).first == std::int32_t(gid(OpKind::R, 2, 1)));
    CHECK(index.depsOf(gid(OpKind::B, 2, 1)).second == std::int32_t(gid(OpKind::B, 3, 1)));
    // Not recomputed: B's local producer stays its F.
    CHECK(index.depsOf(gid(OpKind::B, 2, 0)).first == std::int32_t(gid(OpKind::F, 2, 0)));
}

TEST_CASE("the validator refuses a B before its R, an R without its F and R out of F order",
          "[recompute][validate]") {
    const Schedule base = generateSchedule("1f1b-recompute", {4, 4, 1});
    validate(base);

    SECTION("B before its R on the same device") {
        Schedule s = base;
        auto& ops = s.order[3];
        const int r = positionOf(s, 3, OpKind::R, 3, 2);
        std::swap(ops[std::size_t(r)], ops[std::size_t(r + 1)]); // B3 then R3
        const auto problems = findProblems(s);
        REQUIRE_FALSE(problems.empty());
        CHECK(problems.front().id == "schedule.order");
        CHECK(problems.front().message.find("3B2 runs before its dependency 3R2") != std::string::npos);
    }
    SECTION("an R whose F the schedule does not run") {
        Schedule s = base;
        auto& ops = s.order[1];
        ops.erase(ops.begin() + positionOf(s, 1, OpKind::F, 1, 3));
        const auto problems = findProblems(s);
        CHECK(
            hasProblem(problems, "schedule.recompute",
                       "1R3 recomputes 1F3, which the schedule does not run: a recompute re-runs a forward"));
    }
    SECTION("a stage's recomputes follow its forwards' order") {
        Schedule s = base;
        auto& ops = s.order[0];
        const int r1 = positionOf(s, 0, OpKind::R, 0, 1), r2 = positionOf(s, 0, OpKind::R, 0, 2);
        std::swap(ops[std::size_t(r1)], ops[std::size_t(r2)]);
        const auto problems = findProblems(s);
        CHECK(hasProblem(
            problems, "schedule.recompute",
            "0R2 comes before 0R1, whose forward ran first: a stage recomputes its micro-batches in "
            "the order of their forwards"));
    }
    SECTION("an R on another device than its stage") {
        Schedule s = base;
        s.order[1].insert(s.order[1].begin(), Op{OpKind::R, 0, 0, 0, 0});
        const auto problems = findProblems(s);
        CHECK(
            hasProblem(problems, "schedule.op", "0R0 runs on device 1, but its stage is placed on device 0"));
    }
    SECTION("an R twice") {
        Schedule s = base;
        s.order[0].push_back(Op{OpKind::R, 0, 0, 0, 3});
        const auto problems = findProblems(s);
        CHECK(hasProblem(problems, "schedule.duplicate", "0R3 appears twice"));
    }
}
