// Clocks of a measured run's ranks (io/measured_run.cpp): ranks whose files name one host share
// its clock and keep their times; ranks of different hosts (or files that do not say) are moved
// so that no consumer starts before its producer on another rank ended.
#include "io/measured_run.h"
#include "io/torch_trace.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace stagecraft;

namespace {

/// One rank's Kineto trace of a two-stage forward: stage `rank` runs F of micro-batch 0 over
/// [start, start + 10) µs, then its backward B0 over [start + 40, start + 50).
std::string rankTrace(int rank, double start, const std::string& host) {
    const std::string hostField = host.empty() ? "" : R"("host_name":")" + host + R"(",)";
    auto range = [&](const std::string& name, double ts) {
        return R"({"ph":"X","cat":"user_annotation","name":")" + name + R"(","pid":)" +
               std::to_string(rank + 1) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":10})";
    };
    const std::string s = std::to_string(rank);
    return R"({"distributedInfo":{"rank":)" + s + "}," + hostField + R"("traceEvents":[)" +
           range("PP:" + s + "F0", start) + "," + range("PP:" + s + "B0", start + 40) + "]}";
}

MeasuredRunInfo assemble(const std::string& host0, const std::string& host1) {
    // Stage 1's forward starts at 5, before stage 0's ended at 10: early by 5 µs in rank 0's clock.
    std::vector<RankTrace> ranks = parseTorchTrace(rankTrace(0, 0, host0), "rank0.json");
    for (RankTrace& t : parseTorchTrace(rankTrace(1, 5, host1), "rank1.json")) ranks.push_back(std::move(t));
    MeasuredRunInfo info;
    assembleMeasuredRun(ranks, {}, &info);
    return info;
}

} // namespace

TEST_CASE("ranks that name one host keep their clock; others are aligned by causality", "[trace][clock]") {
    SECTION("one host: one clock, nothing moved") {
        const MeasuredRunInfo info = assemble("node7", "node7");
        REQUIRE(info.clockShift.size() == 2);
        CHECK(info.clockShift[0] == 0);
        CHECK(info.clockShift[1] == 0);
    }
    SECTION("two hosts: rank 1 moved by the gap") {
        const MeasuredRunInfo info = assemble("node7", "node8");
        REQUIRE(info.clockShift.size() == 2);
        CHECK(info.clockShift[0] == 0);
        CHECK(info.clockShift[1] == Approx(5.0));
    }
    SECTION("files that do not name their host are aligned as before") {
        const MeasuredRunInfo info = assemble("", "");
        REQUIRE(info.clockShift.size() == 2);
        CHECK(info.clockShift[1] == Approx(5.0));
    }
}
