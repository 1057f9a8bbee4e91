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
        // Bounded as the run against the prediction (measured / predicted - 1), the quantity the
        // bounds were set on before the report turned to the prediction's error against the run.
        const auto runAgainstPrediction = [&](const char* side) {
            return json[side]["measured_us"].get<double>() / json[side]["predicted_us"].get<double>() - 1;
        };
        CHECK(std::abs(runAgainstPrediction("after")) < 0.10);
        CHECK(std::abs(runAgainstPrediction("after")) < std::abs(runAgainstPrediction("before")));
        // The report's own error is the prediction's against the run.
        CHECK(
            json["after"]["makespan_error"].get<double>() ==
            Approx(json["after"]["predicted_us"].get<double>() / json["after"]["measured_us"].get<double>() -
                   1));
        const stagecraft::Project p = stagecraft::readProject(out);
        CHECK(p.costs.mode == stagecraft::CostMode::Manual);
        CHECK(p.costs.layers.size() == 4);
        CHECK(p.costs.stages.empty());
        // The calibrated project predicts the same makespan when the overlay is asked again.
        const Run again = cli("overlay " + kTraces + run + ".csv --project " + out + " --median --trace " +
                              files(run) + " --json");
        REQUIRE(again.status == 0);
        CHECK(nlohmann::json::parse(again.out)["makespan"]["error"].get<double>() ==
              Approx(json["after"]["makespan_error"].get<double>()));
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("calibrate on a stagecraft-run trace keeps the runtime's timing for every schedule",
          "[cli][calibrate][host_runs]") {
    // The run's own prediction timed its lowered programs as the runtime executes them
    // (otherData.run.prediction_timing); the project written times every schedule that way.
    const std::string runs = std::string(STAGECRAFT_HOST_RUNS_DIR) + "/sleep_pp2/";
    const std::string sets =
        " --set parallel.pp=2 --set costs.mode=manual --set costs.f=4000 --set costs.b=4000 "
        "--set costs.w=4000 --set model.hidden=1024 --set model.seq_len=1024";
    const std::string project =
        std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/runtime/tiny.stagecraft.json";
    const auto out = std::filesystem::temp_directory_path() /
                     ("stagecraft-calibrate-host-" + std::to_string(::getpid()) + ".stagecraft.json");
    const Run text = cli("calibrate " + project + " -s zb-v" + sets + " --trace " + runs +
                         "zb-v.json --median -o " + out.string());
    INFO(text.out);
    REQUIRE(text.status == 0);
    CHECK(text.out.find("every schedule is timed as stagecraft-run executes its programs") !=
          std::string::npos);
    CHECK(text.out.find("no runtime model") == std::string::npos);
    const Run json = cli("calibrate " + project + " -s zb-v" + sets + " --trace " + runs +
                         "zb-v.json --median -o " + out.string() + " --json");
    REQUIRE(json.status == 0);
    CHECK(nlohmann::json::parse(json.out)["timing"] == "stagecraft-run");
    CHECK(stagecraft::readProject(out.string()).costs.timing == stagecraft::Timing::StagecraftRun);
    // Another schedule's run, predicted from the project alone, within the acceptance's 10 %.
    const Run other = cli("simulate " + out.string() + " -s interleaved --json");
    REQUIRE(other.status == 0);
    const double predicted = nlohmann::json::parse(other.out)[0]["iteration_us"].get<double>();
    const Run measured = cli("overlay " + out.string() + " -s interleaved --trace " + runs +
                             "interleaved.json --median --json");
    REQUIRE(measured.status == 0);
    const double run = nlohmann::json::parse(measured.out)["makespan"]["measured_us"].get<double>();
    CHECK(std::abs(predicted - run) / run < 0.10);
    std::filesystem::remove(out);
}

TEST_CASE("calibrate once, then simulate and compare schedules of other shapes on the project",
          "[cli][calibrate]") {
    const auto dir =
        std::filesystem::temp_directory_path() / ("stagecraft-calibrate-once-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    // A shipped sample (8 devices, 30 layers, analytic costs) given the run's pipeline by --set.
    const std::string sample = std::string(STAGECRAFT_SOURCE_DIR) + "/samples/zb-6.2b.stagecraft.json";
    std::ifstream in(sample, std::ios::binary);
    const std::string before((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string out = (dir / "calibrated.stagecraft.json").string();
    const std::string run = "Interleaved1F1B_pp2_m4";
    const Run r =
        cli("calibrate " + sample +
            " -s interleaved --set parallel.pp=2 --set parallel.microbatches=4 --set parallel.chunks=2"
            " --median --trace " +
            files(run) + " -o " + out);
    INFO(r.out);
    REQUIRE(r.status == 0);
    // The report names the layers each measured stage held (30 in 4 stages: 7, 8, 8, 7) and the
    // rule for what the trace did not measure.
    CHECK_THAT(r.out, Catch::Contains("0         0-6"));
    CHECK_THAT(r.out, Catch::Contains("3       23-29"));
    CHECK_THAT(r.out,
               Catch::Contains("backward: the backward was timed whole (no I/W split): B = 50% and W = "
                               "50% of it (--input-share)"));
    // The sample is left as it was; the project written keeps its name, model, memory and schedules.
    std::ifstream again(sample, std::ios::binary);
    CHECK(std::string((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>()) == before);
    const stagecraft::Project original = stagecraft::readProject(sample);
    const stagecraft::Project p = stagecraft::readProject(out);
    CHECK(p.name == original.name);
    CHECK(p.model == original.model);
    CHECK(p.memory == original.memory);
    CHECK(p.schedules == original.schedules);
    CHECK(p.parallel.pp == 2);
    CHECK(p.costs.layers.size() == 4);
    CHECK_THAT(p.costs.note, Catch::Contains("B = 50% and W = 50%"));

    // Schedules of another cut (2 stages, a V, split backward) run on the calibrated project.
    for (const std::string schedule : {"1f1b", "zb-h1", "zb-v"}) {
        const Run sim = cli("simulate " + out + " -s " + schedule + " --json");
        INFO(schedule << ": " << sim.out);
        CHECK(sim.status == 0);
    }
    const Run compare = cli("compare " + out + " -s 1f1b,zb-h1,zb-v,interleaved --json");
    INFO(compare.out);
    REQUIRE(compare.status == 0);
    CHECK(nlohmann::json::parse(compare.out).size() == 4);

    // B's share of a backward timed whole is the user's to choose, inside (0, 1).
    const Run share =
        cli("calibrate " + kTraces + run + ".csv --set parallel.dp=1 --input-share 0.3 --trace " +
            files(run) + " -o " + out + " --json");
    INFO(share.out);
    REQUIRE(share.status == 0);
    const auto json = nlohmann::json::parse(share.out);
    CHECK(json["backward"]["split_measured"] == false);
    CHECK(json["backward"]["rule"] ==
          "the backward was timed whole (no I/W split): B = 30% and W = 70% of it");
    const double b = json["layers"][0]["b_us"].get<double>(), w = json["layers"][0]["w_us"].get<double>();
    CHECK(b / (b + w) == Approx(0.3));
    // The default project's schedules are listed, not only the file's own order.
    CHECK(stagecraft::readProject(out).schedules == stagecraft::defaultProject().schedules);
    const Run bad =
        cli("calibrate " + kTraces + run + ".csv --input-share 1 --trace " + files(run) + " -o " + out);
    CHECK(bad.status == 2);
    CHECK_THAT(bad.out,
               Catch::Contains("input share = 1: B's share of a backward timed whole must lie between 0 "
                               "and 1 (exclusive)"));
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
