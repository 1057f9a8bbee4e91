// stagecraft-cli search end to end: the summary on stdout, progress on stderr, every output
// format read back, options refused with status 2.
#include "cli_run.h"
#include "file_io.h"

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using stagecraft::test::cli;
using stagecraft::test::Run;

std::filesystem::path tempDir() {
    auto dir =
        std::filesystem::temp_directory_path() / ("stagecraft-cli-search-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
}

const std::string kSample = std::string(STAGECRAFT_SOURCE_DIR) + "/samples/bfpp-6.6b.stagecraft.json";

} // namespace

TEST_CASE("search prints the best configuration per schedule and writes CSV, JSON and charts",
          "[cli][search]") {
    namespace fs = std::filesystem;
    const auto dir = tempDir();
    const std::string csv = (dir / "r.csv").string(), json = (dir / "r.json").string(),
                      svg = (dir / "r.svg").string(), tikz = (dir / "r.tikz").string();
    const Run run = cli("search " + kSample +
                        " --batch-per-gpu 0.5..2 --schedules 1f1b,interleaved,breadth-first --threads 2 -o " +
                        csv + " -o " + json + " -o " + svg + " -o " + tikz);
    INFO(run.out);
    REQUIRE(run.status == 0);
    CHECK_THAT(run.out, Catch::Contains("search: "));            // progress on stderr
    CHECK_THAT(run.out, Catch::Contains("batch per GPU 0.500")); // one block per point
    CHECK_THAT(run.out, Catch::Contains("breadth-first pp="));

    const auto parsed = nlohmann::json::parse(stagecraft::readTextFile(json));
    CHECK(parsed["gpus"] == 64);
    CHECK(parsed["points"].size() == 3);
    REQUIRE(parsed["best"].size() == 9);
    for (const auto& c : parsed["configurations"]) {
        CHECK(c["peak_memory_gib"].get<double>() <= c["limit_gib"].get<double>());
        CHECK(c["pp"].get<int>() * c["dp"].get<int>() * c["tp"].get<int>() == 64);
    }
    std::istringstream lines(stagecraft::readTextFile(csv));
    std::string header, line;
    std::getline(lines, header);
    CHECK(header.rfind("schedule,pp,dp,tp,microbatches,chunks", 0) == 0);
    std::size_t rows = 0;
    while (std::getline(lines, line)) ++rows;
    CHECK(rows == parsed["configurations"].size());
    CHECK(stagecraft::readTextFile(svg).find("<svg") != std::string::npos);
    CHECK(stagecraft::readTextFile(tikz).find("\\begin{tikzpicture}") != std::string::npos);

    // The same search with one thread writes the same CSV.
    const std::string csv1 = (dir / "r1.csv").string();
    REQUIRE(cli("search " + kSample +
                " --batch-per-gpu 0.5..2 --schedules 1f1b,interleaved,breadth-first "
                "--threads 1 -q -o " +
                csv1)
                .status == 0);
    CHECK(stagecraft::readTextFile(csv1) == stagecraft::readTextFile(csv));
    fs::remove_all(dir);
}

TEST_CASE("search draws its chart as PDF and PNG through the Qt renderer, or says why it cannot",
          "[cli][search]") {
    namespace fs = std::filesystem;
    const auto dir = tempDir();
    const std::string pdf = (dir / "s.pdf").string(), png = (dir / "s.png").string();
    const Run run = cli("search " + kSample + " --global-batch 64 --schedules 1f1b,breadth-first -q -o " +
                        pdf + " -o " + png + " --dpi 72");
    INFO(run.out);
#ifdef STAGECRAFT_CLI_RASTER
    REQUIRE(run.status == 0);
    CHECK(stagecraft::readTextFile(pdf).rfind("%PDF", 0) == 0);
    CHECK(stagecraft::readTextFile(png).substr(1, 3) == "PNG");
#else
    CHECK(run.status == 2);
    CHECK_THAT(run.out, Catch::Contains("Qt renderer"));
#endif
    fs::remove_all(dir);
}

TEST_CASE("search refuses bad options with status 2 and names them", "[cli][search]") {
    const Run batch = cli("search " + kSample + " --batch-per-gpu 4..1");
    CHECK(batch.status == 2);
    CHECK_THAT(batch.out, Catch::Contains("--batch-per-gpu"));
    const Run gpus = cli("search " + kSample + " --max-gpus 128");
    CHECK(gpus.status == 2);
    CHECK_THAT(gpus.out, Catch::Contains("the cluster has 64"));
    const Run format = cli("search " + kSample + " -o out.txt");
    CHECK(format.status == 2);
    CHECK_THAT(format.out, Catch::Contains("out.txt"));
    const Run both = cli("search " + kSample + " --global-batch 64 --batch-per-gpu 1");
    CHECK(both.status == 2);
    const Run zero = cli("search " + kSample + " --zero 5");
    CHECK(zero.status == 2);
    CHECK_THAT(zero.out, Catch::Contains("ZeRO stage 5"));
    // A positive-number rule in plain words, not CLI11's range of 0 to 1.8e308 in 300 digits.
    const Run negative = cli("search " + kSample + " --global-batch -5");
    CHECK(negative.status == 2);
    CHECK_THAT(negative.out, Catch::Contains("--global-batch: must be a positive number, not -5"));
    CHECK_THAT(negative.out, !Catch::Contains("not in range"));
    CHECK(negative.out.size() < 400);
    const Run threads = cli("search " + kSample + " --threads 0");
    CHECK(threads.status == 2);
    CHECK_THAT(threads.out, Catch::Contains("--threads: must be a positive number, not 0"));
}
