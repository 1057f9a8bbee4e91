// stagecraft-cli overlay and calibrate on torch's recordings with the labels each class writes
// (tests/data/torch-runs): GPipe's Forward i / Backward i with -s gpipe, DualPipeV's OVERLAP_F_B
// slots with -s dualpipev, the runtime's REDUCE_GRAD and waits, and Schedule1F1B's unlabelled
// run refused with how to label it.
#include "../core/torch_runs.h"
#include "cli_run.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

namespace {

using stagecraft::test::cli;
using stagecraft::test::Run;

/// Every rank file of one recorded run of the pp2_h512 set (of every repeat), space-separated for
/// the command line.
std::string traces(const std::string& cls) {
    std::string out;
    for (const auto& f : stagecraft::test::torchRunFiles("pp2_h512", cls))
        out += (out.empty() ? "" : " ") + f.string();
    return out;
}

} // namespace

TEST_CASE("overlay and calibrate read GPipe's own labels with -s gpipe", "[cli][torch_labels]") {
    const std::string shape =
        " -s gpipe --set parallel.pp=2 --set parallel.microbatches=8 --set parallel.dp=1";
    const Run overlay = cli("overlay" + shape + " --trace " + traces("GPipe") + " --median --json");
    INFO(overlay.out);
    REQUIRE(overlay.status == 0);
    const auto json = nlohmann::json::parse(overlay.out);
    CHECK(json["ops"] == 32);
    CHECK(json["run"]["iterations"] == 32);

    const auto out = std::filesystem::temp_directory_path() /
                     ("stagecraft-gpipe-" + std::to_string(::getpid()) + ".stagecraft.json");
    const Run calibrate =
        cli("calibrate" + shape + " --trace " + traces("GPipe") + " --median -o " + out.string());
    INFO(calibrate.out);
    CHECK(calibrate.status == 0);
    CHECK_THAT(calibrate.out, Catch::Contains("calibrated gpipe from 32 measured ops"));
    // The calibrated project is a matching project: gpipe on it takes the same traces.
    const Run again = cli("overlay " + out.string() + " -s gpipe --trace " + traces("GPipe") + " --median");
    INFO(again.out);
    CHECK(again.status == 0);
    CHECK_THAT(again.out, Catch::Contains("on gpipe"));
    std::filesystem::remove(out);
}

TEST_CASE("DualPipeV's overlapped ranges overlay onto -s dualpipev; REDUCE_GRAD is the gradient sync",
          "[cli][torch_labels]") {
    const Run r = cli("overlay -s dualpipev --set parallel.pp=2 --set parallel.microbatches=8 --set "
                      "parallel.dp=1 --trace " +
                      traces("DualPipeV") + " --median --json");
    INFO(r.out);
    REQUIRE(r.status == 0);
    const auto json = nlohmann::json::parse(r.out);
    CHECK(json["ops"] == 4 * 8 * 3 + 4);  // F, B, W of 4 stages and 8 micro-batches, 4 syncs
    CHECK(json["unmatched"].size() == 4); // the optimizer steps torch's step() does not run
    CHECK(json["run"]["overlap_slots"] == 22);
    CHECK(json["run"]["overlaps_by_rule"] == 0);
    CHECK(json["run"]["sync_ranges"] == 4);
    std::vector<std::string> actions;
    for (const auto& b : json["run"]["bookkeeping"]) actions.push_back(b["action"]);
    CHECK(actions ==
          std::vector<std::string>{"WAIT_REDUCE_GRAD", "WAIT_SEND_F", "WAIT_SEND_B", "UNSHARD", "RESHARD"});

    const Run text = cli("overlay -s dualpipev --set parallel.pp=2 --set parallel.microbatches=8 --set "
                         "parallel.dp=1 --trace " +
                         traces("DualPipeV"));
    INFO(text.out);
    CHECK(text.status == 0);
    CHECK_THAT(
        text.out,
        Catch::Contains("overlapped F&B slots: 22 (OVERLAP_F_B ranges, split where the backward began)"));
    CHECK_THAT(text.out, Catch::Contains("gradient syncs: torch's REDUCE_GRAD of 4 stages"));
    CHECK_THAT(text.out, Catch::Contains("runtime actions outside the schedule: WAIT_REDUCE_GRAD 4 ("));
}

TEST_CASE("a Schedule1F1B run without compute labels is refused with how to label it",
          "[cli][torch_labels]") {
    const Run r =
        cli("overlay -s 1f1b --set parallel.pp=2 --set parallel.microbatches=8 --trace " + traces("1F1B"));
    INFO(r.out);
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Catch::Contains("point-to-point transfer records (gloo:send, gloo:recv) but no range "
                                      "named with a pipeline compute action"));
    CHECK_THAT(r.out, Catch::Contains("torch.profiler.record_function"));
    CHECK_THAT(r.out, Catch::Contains("stagecraft-cli export -s 1f1b"));
}
