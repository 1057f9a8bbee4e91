// Before/after goldens of the lowering: the compute order of a schedule (with its iteration
// tail) and the per-rank programs it lowers to, compared as text with
// tests/data/golden/<name>_programs.txt. To regenerate after a deliberate change, run
//   STAGECRAFT_REGEN_GOLDEN=1 ./build/tests/stagecraft_core_tests "[lower][golden]"
// and review the diff (git diff tests/data/golden) before committing it.
#include "generators/registry.h"
#include "ir/op_label.h"
#include "passes/iteration_tail.h"
#include "passes/lower.h"
#include "passes/replay.h"
#include "text/text_programs.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace stagecraft;

namespace {

std::string beforeAndAfter(const Schedule& s) {
    std::string text = "# before: the compute order of " + s.name + " p=" + std::to_string(s.devices) +
                       " m=" + std::to_string(s.microbatches) + " with its iteration tail\n";
    for (int d = 0; d < s.devices; ++d) {
        text += "D" + std::to_string(d) + ":";
        for (const Op& op : s.order[std::size_t(d)]) text += " " + opLabel(s, op);
        text += '\n';
    }
    const Lowered l = lower(s);
    REQUIRE(replay(l, {CommSemantics::Nccl, true}).ok());
    REQUIRE(replay(l, {CommSemantics::Mpi, true}).ok());
    return text + "# after: the programs\n" + formatPrograms(l);
}

void compareWithGolden(const std::string& name, const std::string& actual) {
    const std::string path =
        std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/golden/" + name + "_programs.txt";
    if (std::getenv("STAGECRAFT_REGEN_GOLDEN")) {
        std::ofstream(path, std::ios::binary) << actual;
        WARN("regenerated " << path);
    }
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    std::ostringstream expected;
    expected << in.rdbuf();
    CHECK(actual == expected.str());
}

} // namespace

TEST_CASE("1F1B p=4 m=8 programs match the golden", "[lower][golden]") {
    compareWithGolden("1f1b_p4_m8",
                      beforeAndAfter(addIterationTail(generateSchedule("1f1b", {4, 8, 1}), {})));
}

TEST_CASE("ZB-V p=4 m=8 programs match the golden", "[lower][golden]") {
    compareWithGolden("zb-v_p4_m8",
                      beforeAndAfter(addIterationTail(generateSchedule("zb-v", {4, 8, 1}), {})));
}

TEST_CASE("BitPipe p=4 m=4 programs match the golden", "[lower][golden]") {
    compareWithGolden("bitpipe_p4_m4",
                      beforeAndAfter(addIterationTail(generateSchedule("bitpipe", {4, 4, 1}), {})));
}

TEST_CASE("one iteration lowers with the tail the schedule lacks, and only that", "[lower]") {
    const Schedule plain = generateSchedule("zb-v", ScheduleParams{4, 8, 2});
    const Schedule tailed = addIterationTail(plain, {});
    // The tail is added where the schedule has none: twice is once.
    CHECK(addIterationTail(tailed, {}).order == tailed.order);
    CHECK(lowerIteration(plain) == lower(tailed));
    CHECK(lowerIteration(tailed) == lower(tailed));
    std::size_t steps = 0;
    for (const Program& p : lowerIteration(plain).programs)
        for (const Instruction& in : p.instructions) steps += in.kind == InstrKind::Optimizer;
    CHECK(steps == 8); // one per stage
}
