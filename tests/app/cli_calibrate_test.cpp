// stagecraft-cli overlay --trace and calibrate on the torch profiler traces torch wrote of
// torch.distributed.pipelining runs (tests/data/torch-traces/).
#include "cli_run.h"
#include "project/project_json.h"

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

using stagecraft::test::cli;
using stagecraft::test::Run;

const std::string kTraces = std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/torch-traces/";

std::string files(const std::string& run) {
    return kTraces + run + "_rank0.json " + kTraces + run + "_rank1.json";
}

} // namespace

TEST_CASE("overlay takes one torch profiler trace per rank and matches every compute op", "[cli][overlay]") {
    for (const std::string run : {"Interleaved1F1B_pp2_m4", "ZBVZeroBubble_pp2_m4"}) {
        const Run r =
            cli("overlay " + kTraces + run + ".csv --set costs.mode=manual --set parallel.dp=1 --trace " +
                files(run) + " --json");
        INFO(r.out);
        REQUIRE(r.status == 0);
        const auto json = nlohmann::json::parse(r.out);
        CHECK(json["ops"] == (run.starts_with("ZBV") ? 48 : 32) + 4); // and the 4 gradient syncs
        // The 4 optimizer steps; the gradient syncs are torch's REDUCE_GRAD ranges.
        CHECK(json["unmatched"].size() == 4);
        CHECK(json["run"]["sync_ranges"] == 4);
        CHECK(json["run"]["ranks"] == 2);
        CHECK(json["run"]["iterations"] == 3);
        CHECK(json["run"]["iteration"] == 2);
        const double share = json["run"]["comm_wait_share"].get<double>();
        CHECK(share >= 0.0);
        CHECK(share <= 1.0);
    }
    // The older positional form still reads a single trace; no trace at all is a usage error.
    const Run none = cli("overlay " + kTraces + "ZBVZeroBubble_pp2_m4.csv");
    CHECK(none.status == 2);
    CHECK_THAT(none.out, Catch::Contains("--trace FILE"));
}

TEST_CASE("calibrate writes a project whose prediction is within 10% of the measured makespan",
          "[cli][calibrate]") {
    const auto dir =
        std::filesystem::temp_directory_path() / ("stagecraft-calibrate-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    for (const std::string run : {"Interleaved1F1B_pp2_m4", "ZBVZeroBubble_pp2_m4"}) {
        const std::string out = (dir / (run + ".stagecraft.json")).string();
        const Run r = cli("calibrate " + kTraces + run + ".csv --set parallel.dp=1 --median --trace " +
                          files(run) + " -o " + out + " --json");
        INFO(r.out);
        REQUIRE(r.status == 0);
        const auto json = nlohmann::json::parse(r.out);
        CHECK(std::abs(json["after"]["makespan_error"].get<double>()) < 0.10);
        CHECK(std::abs(json["after"]["makespan_error"].get<double>()) <
              std::abs(json["before"]["makespan_error"].get<double>()));
        const stagecraft::Project p = stagecraft::readProject(out);
        CHECK(p.costs.mode == stagecraft::CostMode::Manual);
        CHECK(p.costs.chunkStages.size() == 4);
        CHECK(p.costs.stages.size() == 2);
        // The calibrated project predicts the same makespan when the overlay is asked again.
        const Run again = cli("overlay " + kTraces + run + ".csv --project " + out + " --median --trace " +
                              files(run) + " --json");
        REQUIRE(again.status == 0);
        CHECK(nlohmann::json::parse(again.out)["makespan"]["error"].get<double>() ==
              Approx(json["after"]["makespan_error"].get<double>()));
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("Nsight Systems SQLite and JSON exports of one run give the same overlay", "[cli][overlay][nsys]") {
    const std::string nsys = std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/nsys/zb_1f1b_2rank_2mb";
    const std::string base = "overlay -s zb-h1 --set parallel.pp=2 --set parallel.microbatches=2 --set "
                             "parallel.dp=1 --set costs.mode=manual --json --trace ";
    const Run json = cli(base + nsys + ".json");
    INFO(json.out);
    REQUIRE(json.status == 0);
    const auto parsed = nlohmann::json::parse(json.out);
    CHECK(parsed["ops"] == 12);
    CHECK(parsed["run"]["ranks"] == 2);
#ifdef STAGECRAFT_HAVE_SQLITE
    const Run sqlite = cli(base + nsys + ".sqlite");
    INFO(sqlite.out);
    REQUIRE(sqlite.status == 0);
    auto fromSqlite = nlohmann::json::parse(sqlite.out);
    fromSqlite["trace"] = parsed["trace"];
    CHECK(fromSqlite == parsed);
#endif
}

#ifdef STAGECRAFT_HAVE_SQLITE
TEST_CASE("A cut or damaged Nsight Systems SQLite export is refused with the file named",
          "[cli][overlay][nsys]") {
    // A database cut short (a copy that did not finish) or with a damaged page: SQLite reports
    // it, the reader refuses it as trace.sqlite naming the file, and the CLI exits with status 2.
    const std::filesystem::path source =
        std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "tests/data/nsys/zb_1f1b_2rank_2mb.sqlite";
    std::ifstream in(source, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(bytes.size() > 4096);
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("stagecraft-cut-sqlite-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string base = "overlay -s zb-h1 --set parallel.pp=2 --set parallel.microbatches=2 --set "
                             "parallel.dp=1 --set costs.mode=manual --trace ";
    std::vector<std::string> variants;
    // Cut inside the header, after the first page, in the middle and by its last byte: the header
    // counts the pages, so the reader says the file is cut short (SQLite alone would report a
    // missing table, or read the rest as if nothing were missing).
    for (const std::size_t cut : {std::size_t(100), std::size_t(4096), bytes.size() / 2, bytes.size() - 1})
        variants.push_back(bytes.substr(0, cut));
    std::string damaged = bytes;
    for (std::size_t k = bytes.size() / 2; k < bytes.size() / 2 + 64; ++k) damaged[k] = '\xA5';
    variants.push_back(damaged);
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const std::filesystem::path file = dir / ("export-" + std::to_string(i) + ".sqlite");
        std::ofstream(file, std::ios::binary) << variants[i];
        const Run run = cli(base + file.string());
        INFO(i << ": " << run.out);
        CHECK(run.status == 2);
        CHECK(run.out.find(file.string()) != std::string::npos);
        CHECK(run.out.find(i < 4 ? "the file is cut short" : "database disk image is malformed") !=
              std::string::npos);
    }
    std::filesystem::remove_all(dir);
}
#endif
