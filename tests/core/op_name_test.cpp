// The one op name (ir/op_name.h): what the CLI, the app, the viewer, search boxes, error messages,
// schedule files and trace slices call an op. Written as torch writes its actions, read back
// exactly, and found by every search box.
#include "generators/registry.h"
#include "ir/op_name.h"
#include "sim/list_scheduler.h"
#include "sim/simulator.h"
#include "sim/timeline_search.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

Op op(OpKind kind, int stage, int mb, int pipe = 0) {
    Op o;
    o.kind = kind;
    o.stage = stage;
    o.mb = mb;
    o.pipe = std::uint8_t(pipe);
    return o;
}

} // namespace

TEST_CASE("opName writes torch's action strings, stage first", "[op_name]") {
    CHECK(opName(op(OpKind::F, 2, 0), false) == "2F0");
    CHECK(opName(op(OpKind::B, 2, 0), false) == "2B0"); // a whole backward
    CHECK(opName(op(OpKind::B, 2, 0), true) == "2I0");  // the input-gradient half
    CHECK(opName(op(OpKind::W, 31, 2000), true) == "31W2000");
    CHECK(opName(op(OpKind::F, 3, 7, 1), false) == "p1:3F7");
    CHECK(opName(op(OpKind::GradSync, 2, -1), false) == "2SYNC");
    CHECK(opName(op(OpKind::Optimizer, 0, -1, 1), true) == "p1:0OPT");
}

TEST_CASE("parseOpName reads every name opName writes, and refuses the rest", "[op_name]") {
    for (const std::string name : {"chimera", "zb-v", "1f1b", "bitpipe"}) {
        const Schedule s = generateSchedule(name, {4, 8, name == "zb-v" ? 2 : 1});
        for (const auto& ops : s.order)
            for (const Op& o : ops) {
                const std::string text = opName(o, s.splitBackward);
                INFO(name << ": " << text);
                const std::optional<Op> back = parseOpName(text);
                REQUIRE(back);
                CHECK(back->kind == o.kind);
                CHECK(back->stage == o.stage);
                CHECK(back->pipe == o.pipe);
                CHECK(back->mb == (isComputeKind(o.kind) ? o.mb : -1));
            }
    }
    CHECK(parseOpName(" 2SYNC ")->kind == OpKind::GradSync);
    std::string why;
    CHECK_FALSE(parseOpName("B0@s2", &why));
    CHECK(why.find("'B0@s2'") != std::string::npos);
    CHECK_FALSE(parseOpName("xSYNC", &why));
    CHECK(why ==
          "'xSYNC': a gradient sync is '<stage>SYNC' and an optimizer step '<stage>OPT', with 'p1:' in "
          "front for the second pipe, as in 'p1:3SYNC'");
}

TEST_CASE("every op's name finds that op in the search boxes", "[op_name][view_support]") {
    // What a front end shows for an op, typed into any search box, finds it: one name everywhere.
    const Schedule s = generateSchedule("zb-v", {4, 8, 2});
    const Timeline t = simulate(s, fullStageCosts(s, 1, 1, 1, 0.0));
    std::size_t checked = 0;
    for (std::size_t k = 0; k < t.events.size(); ++k) {
        const TimelineEvent& e = t.events[k];
        if (e.lane != Lane::Compute) continue;
        const std::string name = opName(e.op, t.shape.splitBackward);
        INFO(name);
        const std::vector<std::size_t> found = findTimelineOps(t, name);
        CHECK(std::find(found.begin(), found.end(), k) != found.end());
        ++checked;
    }
    CHECK(checked == 4 * 8 * 2 * 3); // F, B and W of every stage and micro-batch
}
