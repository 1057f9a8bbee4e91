// torch's own lowering (passes/lower_torch.h) against the compute_comms files torch 2.15 writes
// (tests/data/torch-csv/lowering/, scripts/torch/make_torch_csv.py --lowering): every golden is
// reproduced byte for byte from its compute-only file, under torch's default options and under
// each option set torch was run with; the option sets torch refuses are refused. torch's
// GPipe and 1F1B loops are checked by replay and on one small case written out by hand.
// STAGECRAFT_TORCH_LOWERING_DIR=DIR runs the golden tests on another directory the script wrote
// (its --lowering-full sweep).
#include "error.h"
#include "file_io.h"
#include "generators/registry.h"
#include "io/torch_comms_csv.h"
#include "io/torch_csv.h"
#include "passes/lower_torch.h"
#include "passes/replay.h"
#include "test_support.h"
#include "text/text_programs.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

using namespace stagecraft;
using test::errorSummary;

namespace {

namespace fs = std::filesystem;

fs::path loweringDir() {
    if (const char* dir = std::getenv("STAGECRAFT_TORCH_LOWERING_DIR")) return dir;
    return fs::path(STAGECRAFT_REFERENCE_DIR) / "torch-csv" / "lowering";
}

/// A compute_comms golden: "<Class>_pp<P>_m<M>_v<V>_comms[_<variant>].csv".
struct Golden {
    fs::path comms;
    fs::path computeOnly;
    std::string variant;
};

std::vector<Golden> goldens() {
    static const std::regex name(R"((\w+_pp\d+_m\d+_v\d+)_comms(?:_([a-z0-9-]+))?\.csv)");
    std::vector<Golden> out;
    for (const auto& entry : fs::directory_iterator(loweringDir())) {
        std::smatch match;
        const std::string file = entry.path().filename().string();
        if (!std::regex_match(file, match, name)) continue;
        out.push_back({entry.path(), loweringDir() / (match[1].str() + ".csv"), match[2].str()});
    }
    std::sort(out.begin(), out.end(), [](const Golden& a, const Golden& b) { return a.comms < b.comms; });
    return out;
}

/// The constructor options a variant suffix stands for (make_torch_csv.py's VARIANTS).
TorchLowerOptions optionsOf(const std::string& variant, int ranks) {
    TorchLowerOptions o;
    static const std::regex part(R"(defer-recv|defer-wait|sends(\d+)|active(\d+)|lookahead-auto)");
    std::string rest = variant;
    std::smatch match;
    bool autoLookahead = false;
    while (std::regex_search(rest, match, part)) {
        const std::string token = match[0].str();
        if (token == "defer-recv") o.deferRecv = true;
        if (token == "defer-wait") o.deferReduceGradWait = true;
        if (token == "lookahead-auto") autoLookahead = true;
        if (match[1].matched) o.maxOutstandingSends = std::stoi(match[1].str());
        if (match[2].matched) o.maxActiveStages = std::stoi(match[2].str());
        rest = match.suffix();
    }
    if (autoLookahead) o.unshardLookahead = autoUnshardLookahead(ranks, o.maxActiveStages);
    return o;
}

Schedule readComputeOnly(const fs::path& path) {
    TorchCsvOptions options;
    options.name = path.filename().string();
    return parseTorchCsv(readTextFile(path), path.string(), options);
}

/// torch's csv.writer ends rows with "\r\n"; Stagecraft's writer with "\n".
std::string withoutCarriageReturns(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
    return text;
}

/// The reader's programs as torch runs them: no optimizer step after the schedule (the reader adds
/// one, as Stagecraft's lowering of a whole iteration has), each transfer posted alone.
std::vector<Program> asTorchRuns(std::vector<Program> programs) {
    for (Program& p : programs) {
        auto& ins = p.instructions;
        while (!ins.empty() && ins.back().kind == InstrKind::Optimizer) ins.pop_back();
        for (Instruction& in : ins) in.group = -1;
    }
    return programs;
}

void requireTorchReplays(const Lowered& l) {
    const ReplayResult mpi = replay(l, {CommSemantics::Mpi, false});
    INFO(mpi.message);
    REQUIRE(mpi.ok());
}

} // namespace

TEST_CASE("torch's compute_comms lowering of every golden is reproduced byte for byte",
          "[lower_torch][golden]") {
    std::map<std::string, int> perVariant;
    for (const Golden& g : goldens()) {
        INFO(g.comms.filename().string());
        const Schedule s = readComputeOnly(g.computeOnly);
        const Lowered l = lowerLikeTorch(s, optionsOf(g.variant, s.devices));
        const std::string expected = withoutCarriageReturns(readTextFile(g.comms));
        REQUIRE(programsToTorchCommsCsv(l, s) == expected);
        // Read back, torch's file gives the same instructions, peers, tags, slots and buffers.
        TorchCommsCsvOptions read;
        read.overlap = OverlapPolicy::Keep;
        const Lowered back = parseTorchCommsCsv(expected, g.comms.string(), read);
        REQUIRE(asTorchRuns(back.programs) == l.programs);
        REQUIRE(back.buffers == l.buffers);
        REQUIRE(back.collectives == l.collectives);
        requireTorchReplays(l);
        ++perVariant[g.variant.empty() ? "default" : g.variant];
    }
    // Every class at pp 2..4 and 8; every option set at pp 2..4.
    CHECK(perVariant["default"] >= 190);
    for (const char* variant : {"defer-recv", "sends1", "sends2", "sends4", "defer-recv-sends2", "defer-wait",
                                "active1", "active2", "lookahead-auto"})
        CHECK(perVariant[variant] >= 20);
}

TEST_CASE("Option sets torch refuses are refused", "[lower_torch][golden]") {
    std::ifstream list(loweringDir() / "refused.tsv");
    std::string line;
    int refused = 0;
    while (std::getline(list, line)) {
        const std::string file = line.substr(0, line.find('\t'));
        INFO(line);
        static const std::regex name(R"((\w+_pp\d+_m\d+_v\d+)_comms_([a-z0-9-]+)\.csv)");
        std::smatch match;
        REQUIRE(std::regex_match(file, match, name));
        const Schedule s = readComputeOnly(loweringDir() / (match[1].str() + ".csv"));
        const std::string summary =
            errorSummary([&] { lowerLikeTorch(s, optionsOf(match[2].str(), s.devices)); });
        CHECK(summary.rfind("lower.torch [", 0) == 0);
        ++refused;
    }
    CHECK(refused >= 4);
}

TEST_CASE("DualPipeV's overlapped actions send after the whole action", "[lower_torch]") {
    // torch 2.15, DualPipeV pp = 2, m = 4, rank 0 (torch-timing.md, section 1).
    const Schedule s = readComputeOnly(loweringDir() / "DualPipeV_pp2_m4_v2.csv");
    const std::string row0 = programsToTorchCommsCsv(lowerLikeTorch(s), s);
    CHECK_THAT(row0, Catch::Contains("0RECV_B0,(0F3;3B1)OVERLAP_F_B,0SEND_F3,3SEND_B1,(3F2;0B0)OVERLAP_F_B,"
                                     "0WAIT_SEND_F0,"));
    // Without the slots the same programs are written one op per cell.
    CHECK_THAT(programsToTorchCommsCsv(lowerLikeTorch(s)), Catch::Contains("0F3,3I1,3W1,0SEND_F3,3SEND_B1,"));
}

TEST_CASE("Registered schedules lower like torch to programs that finish", "[lower_torch][property]") {
    int lowered = 0, refused = 0;
    test::forEachAcceptedParams(6, 10, 3, [&](const GeneratorInfo& info, const ScheduleParams& params) {
        if (info.pipes != 1) return;
        INFO(info.name << " p=" << params.pp << " m=" << params.microbatches << " v=" << params.chunks);
        const Schedule s = generateSchedule(info.name, params);
        const TorchRuntime runtime = torchRuntimeOf(info.name);
        if (info.recomputes) { // torch's runtime has no recompute action
            CHECK(errorSummary([&] { lowerLikeTorch(s, runtime); }).rfind("lower.torch [rank 0]", 0) == 0);
            return;
        }
        if (runtime == TorchRuntime::OneFOneBLoop && params.microbatches < params.pp) {
            CHECK(errorSummary([&] { lowerLikeTorch(s, runtime); }).rfind("lower.torch [microbatches]", 0) ==
                  0);
            ++refused;
            return;
        }
        const Lowered l = lowerLikeTorch(s, runtime);
        std::size_t computes = 0;
        for (const Program& p : l.programs)
            for (const Instruction& in : p.instructions) computes += in.kind == InstrKind::Compute;
        REQUIRE(computes == s.opCount());
        requireTorchReplays(l);
        ++lowered;
    });
    CHECK(lowered > 300);
    CHECK(refused > 10);
}

TEST_CASE("The runtime torch runs a registered schedule with", "[lower_torch]") {
    CHECK(torchRuntimeOf("gpipe") == TorchRuntime::GPipeLoop);
    CHECK(torchRuntimeOf("1F1B") == TorchRuntime::OneFOneBLoop);
    CHECK(torchRuntimeOf("interleaved") == TorchRuntime::ScheduleRuntime);
    CHECK(torchRuntimeOf("zb-v") == TorchRuntime::ScheduleRuntime);
    CHECK(std::string(torchRuntimeName(TorchRuntime::OneFOneBLoop)) == "1f1b-loop");
    CHECK(autoUnshardLookahead(4, 3) == std::vector<int>{2, 3, 3, 3});
}

namespace {

/// The loop's compute order is the registered schedule's, and it finishes: with non-blocking sends
/// posted one at a time (torch), and under NCCL's blocking rendezvous with the paired batches
/// posted together (what makes 1F1B's steady state safe there).
void checkLoop(const Schedule& s, const Lowered& l) {
    for (int rank = 0; rank < s.devices; ++rank) {
        std::vector<Op> computed;
        for (const Instruction& in : l.programs[std::size_t(rank)].instructions)
            if (in.kind == InstrKind::Compute) computed.push_back(Op{in.op, in.pipe, 0, in.stage, in.mb});
        REQUIRE(computed == s.order[std::size_t(rank)]);
    }
    requireTorchReplays(l);
    const ReplayResult nccl = replay(l, {CommSemantics::Nccl, true});
    INFO(nccl.message);
    REQUIRE(nccl.ok());
}

} // namespace

TEST_CASE("torch's GPipe and 1F1B loops finish over pp and m", "[lower_torch][loops]") {
    int checked = 0;
    for (int pp = 1; pp <= 8; ++pp)
        for (int m = 1; m <= 16; ++m) {
            INFO("pp=" << pp << " m=" << m);
            const Schedule gpipe = generateSchedule("gpipe", {pp, m, 1});
            checkLoop(gpipe, lowerGPipeLoopLikeTorch(gpipe));
            if (m >= pp) {
                const Schedule oneFOneB = generateSchedule("1f1b", {pp, m, 1});
                checkLoop(oneFOneB, lowerOneFOneBLoopLikeTorch(oneFOneB));
            }
            ++checked;
        }
    CHECK(checked == 128);
}

TEST_CASE("torch's GPipe loop on 2 ranks, 2 micro-batches, written out by hand", "[lower_torch][loops]") {
    // ScheduleGPipe._step_microbatches: per i, recv (posted and waited) -> forward -> send posted;
    // every forward send waited; the same for the backwards; perform_reduce_grad.
    const Lowered l = lowerGPipeLoopLikeTorch(generateSchedule("gpipe", {2, 2, 1}));
    CHECK(programsToTorchCommsCsv(l) ==
          "0F0,0SEND_F0,0F1,0SEND_F1,0WAIT_SEND_F0,0WAIT_SEND_F1,0RECV_B0,0WAIT_RECV_B0,0B0,0RECV_B1,"
          "0WAIT_RECV_B1,0B1,0REDUCE_GRAD,0WAIT_REDUCE_GRAD\n"
          "1RECV_F0,1WAIT_RECV_F0,1F0,1RECV_F1,1WAIT_RECV_F1,1F1,1B0,1SEND_B0,1B1,1SEND_B1,1WAIT_SEND_B0,"
          "1WAIT_SEND_B1,1REDUCE_GRAD,1WAIT_REDUCE_GRAD\n");
    for (const Program& p : l.programs)
        for (const Instruction& in : p.instructions) CHECK(in.group == -1);
}

TEST_CASE("torch's 1F1B loop on 3 ranks, 4 micro-batches, written out by hand", "[lower_torch][loops]") {
    // Schedule1F1B._step_microbatches, stage s of 3: min(4, 3 - s) warm-up forwards, each but the
    // first waiting the previous forward's send, the last one's send held back; steady state:
    // [SEND_F(f-1), RECV_B(b)] waited send first -> B(b) -> [SEND_B(b), RECV_F(f)] -> F(f);
    // after the last forward: SEND_B, then per backward: recv, B, wait the previous send, send.
    const Lowered l = lowerOneFOneBLoopLikeTorch(generateSchedule("1f1b", {3, 4, 1}));
    CHECK(programsToTorchCommsCsv(l) ==
          // rank 0: 3 warm-up forwards, then B0 F3 B1, cool-down B2 B3.
          "0F0,0SEND_F0,0F1,0WAIT_SEND_F0,0SEND_F1,0F2,0WAIT_SEND_F1,"
          "0SEND_F2,0RECV_B0,0WAIT_SEND_F2,0WAIT_RECV_B0,0B0,0F3,"
          "0SEND_F3,0RECV_B1,0WAIT_SEND_F3,0WAIT_RECV_B1,0B1,"
          "0RECV_B2,0WAIT_RECV_B2,0B2,0RECV_B3,0WAIT_RECV_B3,0B3,0REDUCE_GRAD,0WAIT_REDUCE_GRAD\n"
          // rank 1: 2 warm-up forwards.
          "1RECV_F0,1WAIT_RECV_F0,1F0,1SEND_F0,1RECV_F1,1WAIT_RECV_F1,1F1,1WAIT_SEND_F0,"
          "1SEND_F1,1RECV_B0,1WAIT_SEND_F1,1WAIT_RECV_B0,1B0,"
          "1SEND_B0,1RECV_F2,1WAIT_SEND_B0,1WAIT_RECV_F2,1F2,"
          "1SEND_F2,1RECV_B1,1WAIT_SEND_F2,1WAIT_RECV_B1,1B1,"
          "1SEND_B1,1RECV_F3,1WAIT_SEND_B1,1WAIT_RECV_F3,1F3,"
          "1SEND_F3,1RECV_B2,1WAIT_SEND_F3,1WAIT_RECV_B2,1B2,1SEND_B2,"
          "1RECV_B3,1WAIT_RECV_B3,1B3,1WAIT_SEND_B2,1SEND_B3,1WAIT_SEND_B3,1REDUCE_GRAD,1WAIT_REDUCE_GRAD\n"
          // rank 2 (last stage): 1 warm-up forward, no forward sends, no backward receives.
          "2RECV_F0,2WAIT_RECV_F0,2F0,2B0,"
          "2SEND_B0,2RECV_F1,2WAIT_SEND_B0,2WAIT_RECV_F1,2F1,2B1,"
          "2SEND_B1,2RECV_F2,2WAIT_SEND_B1,2WAIT_RECV_F2,2F2,2B2,"
          "2SEND_B2,2RECV_F3,2WAIT_SEND_B2,2WAIT_RECV_F3,2F3,2B3,"
          "2SEND_B3,2WAIT_SEND_B3,2REDUCE_GRAD,2WAIT_REDUCE_GRAD\n");
    // The paired batches are groups; everything else is posted alone.
    const auto& r1 = l.programs[1].instructions;
    CHECK(describeInstruction(l, r1[9]) == "RECV_B s2->s1 mb0 from r2 tag 3 slot 0 bytes 1 group 0");
    CHECK(r1[8].group == 0);
    CHECK(r1[3].group == -1);
}

TEST_CASE("torch's loops and options refuse what torch refuses", "[lower_torch]") {
    CHECK(errorSummary([] {
              lowerOneFOneBLoopLikeTorch(generateSchedule("1f1b", {4, 3, 1}));
          }) ==
          "lower.torch [microbatches] | torch's Schedule1F1B needs at least as many micro-batches as stages "
          "(3 < 4)");
    CHECK(
        errorSummary([] {
            lowerGPipeLoopLikeTorch(generateSchedule("interleaved", {2, 4, 2}));
        }) ==
        "lower.torch [schedule] | torch's ScheduleGPipe loop runs one pipe with one stage per rank; schedule "
        "'interleaved' does not");
    const Schedule s = generateSchedule("interleaved", {2, 4, 2});
    TorchLowerOptions o;
    o.unshardLookahead = {1};
    CHECK(errorSummary([&] { lowerLikeTorch(s, o); }) == "lower.torch [unshardLookahead] | unshardLookahead "
                                                         "has 1 entries: torch's unshard_lookahead tuple has "
                                                         "one per rank (2)");
    o = {};
    o.maxOutstandingSends = 0;
    CHECK(errorSummary([&] {
              lowerLikeTorch(s, o);
          }).rfind("lower.torch [maxOutstandingSends] | no wait can move", 0) == 0);
    CHECK(
        errorSummary([] {
            lowerLikeTorch(generateSchedule("chimera", {4, 4, 1}));
        }) ==
        "lower.torch [pipes] | schedule 'chimera' runs 2 pipes: torch's actions name a stage, not a pipe, so "
        "torch cannot run it");
}
