// Property sweep over every registered generator: p in 1..16, m in 1..64, v in 1..4 (v only
// for generators that take chunks). Every accepted combination validates (each op exactly
// once, orders consistent with the dependencies, no deadlock) and has the right op counts;
// every rejected combination is rejected by exactly the documented rule, with a message naming
// the field.
#include "error.h"
#include "generators/registry.h"
#include "ir/op_index.h"
#include "test_support.h"
#include "validate/validator.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace stagecraft;
using stagecraft::test::takesChunks;

namespace {

/// The documented constraints, written independently of the generators' own checks.
bool expectedAccepted(std::string_view name, int p, int m, int v, int k) {
    if (name == "seq1f1b-i") return v >= 2 && m % p == 0 && p % k == 0;
    if (name == "interleaved" || name == "interleaved-zb")
        return v >= 2 && m % std::max(1, m / p) == 0; // torch's equal rounds
    if (name == "chimera" || name == "bitpipe" || name == "bitpipe-figure") return p % 2 == 0 && m % p == 0;
    if (name == "hanayo") return v % 2 == 0; // two chunks per wave
    if (name == "v-1f1b") return p >= 2;
    if (name == "zb-h2" || name == "dualpipev") return m >= 2 * p;
    if (name == "dualpipe") return p % 2 == 0 && m % 2 == 0 && m >= 2 * p;
    return true;
}

void checkCounts(const Schedule& s, const GeneratorInfo& info, const ScheduleParams& params) {
    const int kinds = opsPerStageMicrobatch(info);
    REQUIRE(s.stagesPerPipe == info.stagesPerPipe(params));
    REQUIRE(s.pipes == info.pipes);
    std::size_t compute = 0;
    for (const auto& ops : s.order)
        compute += std::count_if(ops.begin(), ops.end(), [](const Op& op) { return isComputeKind(op.kind); });
    // A sliced schedule (Seq1F1B) runs its ops per slice unit: m x k of them.
    REQUIRE(compute == std::size_t(s.stagesPerPipe) * params.microbatches * kinds * s.sequenceSlices);
    // Each device runs F, B (and W) once per micro-batch of each stage it holds.
    const OpIndex index(s);
    std::vector<std::size_t> perPipe(s.pipes, 0);
    for (int mb = 0; mb < s.microbatches; ++mb) ++perPipe[index.pipeOf(mb)];
    std::vector<std::size_t> expected(s.devices, 0);
    for (int pipe = 0; pipe < s.pipes; ++pipe)
        for (const StageSlot& slot : s.placement[pipe]) expected[slot.device] += perPipe[pipe];
    for (int d = 0; d < s.devices; ++d) {
        const auto forwards = std::count_if(s.order[d].begin(), s.order[d].end(),
                                            [](const Op& op) { return op.kind == OpKind::F; });
        REQUIRE(std::size_t(forwards) == expected[d]);
    }
}

} // namespace

TEST_CASE("Every generator over p 1..16, m 1..64, v 1..4", "[generators][property]") {
    for (const GeneratorInfo& info : generators()) DYNAMIC_SECTION(info.name) {
            const int maxChunks = takesChunks(info) ? 4 : 1;
            // Sliced schedules over k 1..4; the others ignore the slices (2 by default).
            const bool sliced = readsParam(info, kParamSlices);
            int accepted = 0;
            for (int p = 1; p <= 16; ++p)
                for (int m = 1; m <= 64; ++m)
                    for (int v = 1; v <= maxChunks; ++v)
                        for (int k = sliced ? 1 : 2; k <= (sliced ? 4 : 2); ++k) {
                            const ScheduleParams params{p, m, v, k};
                            INFO(info.name << " p=" << p << " m=" << m << " v=" << v << " k=" << k);
                            const auto violation = constraintViolation(info, params);
                            REQUIRE(violation.has_value() == !expectedAccepted(info.name, p, m, v, k));
                            if (violation) {
                                REQUIRE_THAT(*violation, Catch::Contains("parallel."));
                                REQUIRE_THROWS_AS(generateSchedule(info.name, params), ValidationError);
                                continue;
                            }
                            ++accepted;
                            const Schedule s = generateSchedule(info.name, params);
                            const auto problems = findProblems(s, 3);
                            INFO((problems.empty() ? std::string() : problems.front().message));
                            REQUIRE(problems.empty());
                            checkCounts(s, info, params);
                        }
            INFO(info.name);
            CHECK(accepted > 0);
        }
}

TEST_CASE("Rejections name the field, the value and the rule", "[generators]") {
    auto messageOf = [](std::string_view name, ScheduleParams params) {
        try {
            generateSchedule(name, params);
        } catch (const ValidationError& e) {
            return e.field() + " | " + e.message();
        }
        return std::string("accepted");
    };
    CHECK(messageOf("interleaved", {4, 9, 2}) ==
          "parallel.microbatches | parallel.microbatches = 9: interleaved runs max(1, microbatches / pp) = 2 "
          "rounds of equal size and needs microbatches % 2 == 0 (pp = 4; torch's Interleaved1F1B rule)");
    CHECK(
        messageOf("interleaved", {4, 14, 3}) ==
        "parallel.microbatches | parallel.microbatches = 14: interleaved runs max(1, microbatches / pp) = 3 "
        "rounds of equal size and needs microbatches % 3 == 0 (pp = 4; torch's Interleaved1F1B rule)");
    CHECK(messageOf("interleaved", {4, 8, 1}) ==
          "parallel.chunks | parallel.chunks = 1: interleaved needs chunks in 2..64");
    CHECK(messageOf("chimera", {1, 2, 1}) == "parallel.pp | parallel.pp = 1: chimera needs pp in 2..4096");
    CHECK(messageOf("bitpipe", {6, 8, 1}) ==
          "parallel.microbatches | parallel.microbatches = 8: bitpipe needs microbatches % pp == 0 (pp = 6)");
    CHECK(messageOf("chimera", {5, 10, 1}) == "parallel.pp | parallel.pp = 5: chimera runs two pipelines in "
                                              "opposite directions and needs an even pp");
    CHECK(messageOf("zb-h2", {4, 7, 1}) ==
          "parallel.microbatches | parallel.microbatches = 7: zb-h2 needs microbatches >= 2 * pp = 8 to fill "
          "its warm-up");
    CHECK(messageOf("1f1b", {1000000000, 8, 1}) ==
          "parallel.pp | parallel.pp = 1000000000: 1f1b needs pp in 1..4096");
    CHECK(messageOf("gpipe", {4, 0, 1}) ==
          "parallel.microbatches | parallel.microbatches = 0: gpipe needs microbatches in 1..1048576");
    CHECK(messageOf("1f1b", {4096, 1 << 20, 1}).find("more than the limit") != std::string::npos);
}

TEST_CASE("Unknown schedule names list the valid ones, case-insensitively", "[generators]") {
    CHECK(findGenerator("ZB-V").name == "zb-v");
    try {
        findGenerator("zb-x");
        FAIL("accepted an unknown name");
    } catch (const ValidationError& e) {
        CHECK(std::string(e.what()) ==
              "[schedule.unknown] unknown schedule 'zb-x'; valid names: gpipe, 1f1b, 1f1b-recompute, "
              "interleaved, breadth-first, chimera, bitpipe, bitpipe-figure, hanayo, zb-h1, zb-h2, zb-v, "
              "v-1f1b, zb-v-half, "
              "zb-v-min, zb-auto, interleaved-zb, dualpipe, "
              "dualpipev, seq1f1b, seq1f1b-i, terapipe");
    }
}
