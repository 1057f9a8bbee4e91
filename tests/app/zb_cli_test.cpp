// stagecraft-cli with the zero-bubble additions: zb-auto under memory.limit_microbatches (export,
// simulate with its notes) and costs.optimizer_sync = post-validation.
#include "cli_run.h"
#include "io/chrome_trace.h"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using stagecraft::test::cli;
using stagecraft::test::Run;

const std::string kProject = std::string(STAGECRAFT_SOURCE_DIR) + "/samples/zb-1.5b.stagecraft.json";

} // namespace

TEST_CASE("export -s zb-auto with memory.limit_microbatches writes a trace that reads back",
          "[cli][zb-auto]") {
    const auto dir =
        std::filesystem::temp_directory_path() / ("stagecraft-zb-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string trace = (dir / "trace.json").string();
    const Run run = cli("export " + kProject + " -s zb-auto --set memory.limit_microbatches=16 -o " + trace);
    INFO(run.out);
    REQUIRE(run.status == 0);
    const auto timeline = stagecraft::readChromeTrace(trace);
    CHECK(timeline.shape.schedule == "zb-auto");
    CHECK(timeline.shape.devices == 8);
    const auto computeOps =
        std::count_if(timeline.events.begin(), timeline.events.end(), [](const stagecraft::TimelineEvent& e) {
            return e.lane == stagecraft::Lane::Compute && stagecraft::isComputeKind(e.op.kind);
        });
    CHECK(computeOps == 8 * 32 * 3);
    std::filesystem::remove_all(dir);
}

TEST_CASE("simulate prints zb-auto's bound and the post-validation iteration", "[cli][zb-auto]") {
    const Run run =
        cli("simulate " + kProject +
            " -s zb-auto --set memory.limit_microbatches=8 --set costs.optimizer_sync=post-validation");
    INFO(run.out);
    REQUIRE(run.status == 0);
    CHECK_THAT(run.out, Catch::Contains("lower bound"));
    CHECK_THAT(run.out, Catch::Contains("of limit 8.00"));
    CHECK_THAT(run.out, Catch::Contains("post-validation: iteration = longest device span + rollback check"));
    const Run refused = cli("simulate " + kProject + " -s zb-auto --set memory.limit_microbatches=0.5");
    CHECK(refused.status == 2);
    CHECK_THAT(refused.out, Catch::Contains("at least one micro-batch"));
}
