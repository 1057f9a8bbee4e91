// `stagecraft-cli lower --like torch`: the program torch 2.15 runs, written as torch writes it
// (checked against torch's own files in tests/data/torch-csv/lowering/), its loops for gpipe and
// 1f1b, and the options that belong to torch's lowering only.
#include "cli_run.h"
#include "file_io.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

using stagecraft::test::cli;
using stagecraft::test::Run;

namespace {

namespace fs = std::filesystem;

const std::string kLowering = std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/torch-csv/lowering/";

fs::path tempDir() {
    const fs::path dir =
        fs::temp_directory_path() / ("stagecraft-cli-lower-torch-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir;
}

/// torch's csv.writer ends rows with "\r\n".
std::string torchFile(const std::string& name) {
    std::string text = stagecraft::readTextFile(kLowering + name);
    text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
    return text;
}

} // namespace

TEST_CASE("lower --like torch writes the program torch writes", "[cli][lower][lower_torch]") {
    const fs::path dir = tempDir();
    // A registered schedule whose order is torch's Interleaved1F1B order at pp = 4, m = 10.
    const std::string interleaved = (dir / "interleaved.csv").string();
    const Run run = cli("lower -s interleaved --set parallel.pp=4 --set parallel.microbatches=10 "
                        "--set parallel.chunks=2 --like torch -o " +
                        interleaved);
    REQUIRE(run.status == 0);
    CHECK_THAT(run.out,
               Catch::Contains("replay: deadlock-free under MPI semantics, each transfer posted alone"));
    CHECK(stagecraft::readTextFile(interleaved) == torchFile("Interleaved1F1B_pp4_m10_v2_comms.csv"));
    // torch's compute-only file, overlapped actions and all, with an option of torch's runtime.
    const std::string dualpipev = (dir / "dualpipev.csv").string();
    REQUIRE(
        cli("lower " + kLowering + "DualPipeV_pp3_m8_v2.csv --like torch --torch-defer-recv -o " + dualpipev)
            .status == 0);
    CHECK(stagecraft::readTextFile(dualpipev) == torchFile("DualPipeV_pp3_m8_v2_comms_defer-recv.csv"));
    fs::remove_all(dir);
}

TEST_CASE("lower --like torch lists torch's GPipe loop with its waits", "[cli][lower][lower_torch]") {
    const Run run = cli("lower -s gpipe --set parallel.pp=2 --set parallel.microbatches=2 --like torch");
    REQUIRE(run.status == 0);
    CHECK_THAT(run.out, Catch::Contains("r1: RECV_F s0->s1 mb0 from r0 tag 0 slot 0 bytes 1\n"
                                        "r1: WAIT RECV_F s0->s1 mb0 at 0\n"
                                        "r1: F s1 mb0 slot 0\n"));
    CHECK_THAT(run.out, Catch::Contains("r0: WAIT SEND_F s0->s1 mb0 at 1\n"));
    CHECK_THAT(run.out, Catch::Contains("r0: GRAD_SYNC s0 ranks r0\n"));
    CHECK_THAT(run.out, !Catch::Contains("OPTIMIZER"));
    // The NCCL replay, asked for, checks the same programs under blocking sends.
    CHECK(
        cli("lower -s gpipe --set parallel.pp=2 --set parallel.microbatches=2 --like torch --semantics nccl")
            .status == 0);
}

TEST_CASE("lower refuses torch's options without --like torch, and --like torch on programs",
          "[cli][lower][lower_torch]") {
    const Run options = cli("lower -s interleaved --set parallel.pp=2 --torch-defer-recv");
    CHECK(options.status == 2);
    CHECK_THAT(options.out, Catch::Contains("add --like torch"));
    const Run lowered = cli("lower " + kLowering + "LoopedBFS_pp2_m3_v2_comms.csv --like torch");
    CHECK(lowered.status == 2);
    CHECK_THAT(lowered.out, Catch::Contains("is already lowered (compute+comms)"));
    const Run oneFOneB = cli("lower -s 1f1b --set parallel.pp=4 --set parallel.microbatches=2 --like torch");
    CHECK(oneFOneB.status == 2);
    CHECK_THAT(oneFOneB.out, Catch::Contains("torch's Schedule1F1B needs at least as many micro-batches"));
}
