// The big-input guard: what an analysis will cost before it runs, and the verdict front ends act
// on (run, ask first, refuse).
#include "eval/work_estimate.h"
#include "number_text.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

AnalysisRequest requestFor(int pp, int m, std::vector<std::string> schedules) {
    AnalysisRequest request;
    request.project.parallel.pp = pp;
    request.project.parallel.microbatches = m;
    request.project.schedules = std::move(schedules);
    return request;
}

} // namespace

TEST_CASE("The work estimate counts every compute op of the request", "[work]") {
    // 1F1B: p stages x m micro-batches x (F, B); ZB-H1 also W.
    const WorkEstimate e = estimateWork(requestFor(8, 64, {"1f1b", "zb-h1"}));
    CHECK(e.ops == 8 * 64 * 2 + 8 * 64 * 3);
    CHECK(e.bytes == Approx(double(e.ops) * kAnalysisBytesPerOp));
}

TEST_CASE("Small work runs, big work is confirmed, work beyond the machine is refused", "[work]") {
    const double machine = 24.0 * (1ull << 30);
    CHECK(judgeWork(estimateWork(requestFor(8, 64, {"1f1b"})), machine).verdict == WorkVerdict::Run);

    // The case: a typo of micro-batches, clamped to the largest the field takes.
    const WorkEstimate typo = estimateWork(requestFor(8, 1 << 20, {"1f1b", "zb-h1", "interleaved"}));
    const WorkDecision refused = judgeWork(typo, machine);
    CHECK(refused.verdict == WorkVerdict::Refuse);
    CHECK_THAT(refused.message, Catch::Contains(groupedInteger(typo.ops) + " ops"));
    CHECK_THAT(refused.message, Catch::Contains("parallel.microbatches"));
    CHECK_THAT(refused.message, Catch::Contains("24.00 GiB"));

    // Between the thresholds: asked first, with the op count and the memory.
    const WorkEstimate big = estimateWork(requestFor(8, 1 << 19, {"1f1b"}));
    REQUIRE(big.ops > kConfirmWorkOps);
    const WorkDecision ask = judgeWork(big, machine);
    CHECK(ask.verdict == WorkVerdict::Confirm);
    CHECK_THAT(ask.message, Catch::Contains(groupedInteger(big.ops)));
    CHECK_THAT(ask.message, Catch::Contains(gibText(big.bytes)));
    // An unknown machine size never refuses for memory.
    CHECK(judgeWork(typo, 0).verdict == WorkVerdict::Confirm);
}

TEST_CASE("Quantities in words", "[work]") {
    CHECK(groupedInteger(0) == "0");
    CHECK(groupedInteger(999) == "999");
    CHECK(groupedInteger(1000) == "1,000");
    CHECK(groupedInteger(40000000) == "40,000,000");
    CHECK(gibText(1.5 * (1ull << 30)) == "1.50 GiB");
}

TEST_CASE("Searched orders weigh more in the effort than plain ones", "[work]") {
    const WorkEstimate plain = estimateWork(requestFor(8, 64, {"zb-h1"}));
    CHECK(plain.effortOps == Approx(double(plain.ops)));
    const WorkEstimate searched = estimateWork(requestFor(8, 64, {"zb-auto"}));
    CHECK(searched.ops == plain.ops);
    CHECK(searched.effortOps == Approx(kSearchEffortPerOp * double(searched.ops)));
}
