// torch's compute+comms CSV: our lowered programs written in torch's grammar read back
// identically for every registered schedule torch can express; torch's own lowered actions
// (REDUCE_GRAD, UNSHARD/RESHARD, WAIT_*) read as what they are; malformed files are refused with
// their row and column.
#include "error.h"
#include "generators/registry.h"
#include "io/torch_comms_csv.h"
#include "passes/iteration_tail.h"
#include "passes/replay.h"
#include "test_support.h"
#include "text/text_programs.h"

#include <catch2/catch.hpp>

using namespace stagecraft;
using test::errorSummary;

TEST_CASE("Our programs written as torch's compute+comms CSV read back identically",
          "[torch_comms_csv][property]") {
    int checked = 0;
    test::forEachAcceptedParams(6, 8, 3, [&](const GeneratorInfo& info, const ScheduleParams& params) {
        if (info.pipes != 1) return;
        for (bool tail : {false, true}) {
            INFO(info.name << " p=" << params.pp << " m=" << params.microbatches << " v=" << params.chunks
                           << " tail=" << tail);
            Schedule s = generateSchedule(info.name, params);
            if (tail) s = addIterationTail(s, {});
            const Lowered lowered = lower(s);
            if (info.recomputes) { // torch has no recompute action
                CHECK_THROWS_WITH(programsToTorchCommsCsv(lowered), Catch::Contains("csv.recompute"));
                continue;
            }
            const std::string csv = programsToTorchCommsCsv(lowered);
            const Lowered read = parseTorchCommsCsv(csv, "round-trip.csv");
            REQUIRE(read.programs == lowered.programs);
            REQUIRE(read.buffers == lowered.buffers);
            REQUIRE(read.peakBuffers == lowered.peakBuffers);
            REQUIRE(read.collectives == lowered.collectives);
            REQUIRE(read.placement == lowered.placement);
            REQUIRE(read.splitBackward == lowered.splitBackward);
            REQUIRE(programsToTorchCommsCsv(read) == csv);
            ++checked;
        }
    });
    CHECK(checked > 500);
}

TEST_CASE("The compute+comms CSV of 1F1B p=2 m=2 in torch's grammar", "[torch_comms_csv]") {
    const Lowered l = lower(addIterationTail(generateSchedule("1f1b", {2, 2, 1}), {}));
    CHECK(programsToTorchCommsCsv(l) == "0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1,0REDUCE_GRAD\n"
                                        "1RECV_F0,1F0,1B0,1RECV_F1,1SEND_B0,1F1,1B1,1SEND_B1,1REDUCE_GRAD\n");
}

TEST_CASE("Bidirectional programs cannot be written as torch's CSV", "[torch_comms_csv]") {
    const Lowered l = lower(generateSchedule("chimera", {4, 4, 1}));
    CHECK(
        errorSummary([&] { programsToTorchCommsCsv(l); }) ==
        "csv.bidirectional [pipes] | programs 'chimera' run 2 pipes: torch's compute+comms CSV has no way to "
        "express a second pipe (an action names a stage, not a pipe); write them as .json or .txt");
}

TEST_CASE("torch's FSDP actions, reductions and waits read as what they are", "[torch_comms_csv]") {
    // As torch 2.15 lowers GPipe with FSDP: unshard before the forwards, the sends waited at the
    // end, the gradient reduction waited before the step.
    const std::string csv =
        "0UNSHARD,0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1,0WAIT_SEND_F0,"
        "0WAIT_SEND_F1,0REDUCE_GRAD,0RESHARD,0WAIT_REDUCE_GRAD\n"
        "1UNSHARD,1RECV_F0,1F0,1RECV_F1,1F1,1B0,1SEND_B0,1B1,1SEND_B1,1REDUCE_GRAD,1RESHARD,"
        "1WAIT_REDUCE_GRAD\n";
    const Lowered l = parseTorchCommsCsv(csv, "gpipe_fsdp.csv");
    const auto& r0 = l.programs[0].instructions;
    REQUIRE(r0.size() == 15); // 14 cells and the optimizer step after the reduction
    CHECK(r0[0].kind == InstrKind::Unshard);
    CHECK(describeInstruction(l, r0[9]) == "WAIT SEND_F s0->s1 mb0 at 2");
    CHECK(describeInstruction(l, r0[11]) == "GRAD_SYNC s0 ranks r0");
    CHECK(describeInstruction(l, r0[13]) == "WAIT GRAD_SYNC s0 at 11");
    CHECK(describeInstruction(l, r0[14]) == "OPTIMIZER s0");
    CHECK(programsToTorchCommsCsv(l) == csv);
    CHECK(replay(l, {CommSemantics::Nccl, true}).ok());
    CHECK(replay(l, {CommSemantics::Mpi, true}).ok());
}

TEST_CASE("Malformed compute+comms files are refused with their row and column", "[torch_comms_csv]") {
    auto parse = [](const std::string& text) {
        return errorSummary([&] { parseTorchCommsCsv(text, "bad.csv"); });
    };
    const std::string r1 = "\n1RECV_F0,1F0,1B0,1SEND_B0\n";
    CHECK(parse("0F0,0SEND_X0,0RECV_B0,0B0" + r1) ==
          "csv.cell 1:2 | bad.csv line 1, column 2: '0SEND_X0': 'SEND_X' is not one of torch's actions (F, "
          "I, B, W, SEND_F, RECV_F, SEND_B, "
          "RECV_B, UNSHARD, RESHARD, REDUCE_GRAD, or WAIT_ and one of those it waits for)");
    CHECK(parse("0F0,0SEND_F,0RECV_B0,0B0" + r1) == "csv.cell 1:2 | bad.csv line 1, column 2: '0SEND_F': "
                                                    "SEND_F must be followed by a micro-batch number");
    CHECK(
        parse("0F0,0SEND_F0x,0RECV_B0,0B0" + r1) ==
        "csv.cell 1:2 | bad.csv line 1, column 2: '0SEND_F0x': unexpected 'x' after the micro-batch number");
    CHECK(parse("0F0,0REDUCE_GRAD3,0SEND_F0,0RECV_B0,0B0" + r1) ==
          "csv.cell 1:2 | bad.csv line 1, column 2: '0REDUCE_GRAD3': REDUCE_GRAD names a stage, not a "
          "micro-batch, as in '0REDUCE_GRAD'");
    CHECK(parse("0F0,1SEND_F0,0RECV_B0,0B0" + r1) ==
          "csv.message 1:2 | bad.csv line 1, column 2: '1SEND_F0': stage 1 runs on rank 1: a rank's actions "
          "name its own stages");
    CHECK(parse("0F0,0RECV_F0,0SEND_F0,0RECV_B0,0B0" + r1) ==
          "csv.message 1:2 | bad.csv line 1, column 2: '0RECV_F0': stage 0 has no stage -1 to receive from");
    CHECK(parse("0F0,0SEND_F0,0SEND_F0,0RECV_B0,0B0" + r1) ==
          "csv.duplicate 1:3 | bad.csv line 1, column 3: '0SEND_F0' appears twice (first at row 1, column "
          "2): each transfer is posted once");
    CHECK(parse("0F0,0RECV_B0,0B0" + r1) == "csv.message 1:0 | bad.csv line 1: rank 0 (row 1) has no "
                                            "'0SEND_F0': stages 0 and 1 run on ranks 0 and 1, so every "
                                            "micro-batch's activation and gradient cross between them");
    CHECK(parse("0F0,0WAIT_SEND_F0,0SEND_F0,0RECV_B0,0B0" + r1) ==
          "csv.wait 1:2 | bad.csv line 1, column 2: '0WAIT_SEND_F0' waits for '0SEND_F0', which rank 0 has "
          "not posted before it");
    CHECK(parse("0F0,1F0,0SEND_F0,1B0,0B0\n") ==
          "csv.message 1:3 | bad.csv line 1, column 3: '0SEND_F0': stages 0 and 1 both run on rank 0, which "
          "hands the tensor over locally "
          "(no transfer)");
    // The compute cells keep the compute-only reader's checks and positions.
    CHECK(parse("0F0,0SEND_F0,0RECV_B0,0X0" + r1) ==
          "csv.cell 1:4 | bad.csv line 1, column 4: '0X0': 'X' is not a compute action type; expected F, I, "
          "B or W after the stage number");
    CHECK(parse("") == "csv.empty 0:0 | bad.csv: the file has no action: a compute+comms CSV has one row of "
                       "actions per rank");
}

TEST_CASE("Compute+comms files that hang under NCCL read, and the replay says why", "[torch_comms_csv]") {
    // Rank 0 receives mb1's gradient before mb0's while rank 1 sends mb0's first: NCCL matches in
    // order and would hand mb0's gradient to mb1; MPI matches by tag.
    const Lowered swapped = parseTorchCommsCsv("0F0,0F1,0SEND_F0,0RECV_B1,0SEND_F1,0RECV_B0,0B0,0B1\n"
                                               "1RECV_F0,1F0,1B0,1SEND_B0,1RECV_F1,1F1,1B1,1SEND_B1\n",
                                               "swapped.csv");
    CHECK(replay(swapped, {CommSemantics::Nccl, true}).id == "lower.mismatch");
    CHECK(replay(swapped, {CommSemantics::Mpi, true}).ok());
    // Both ranks send before they receive, with compute in between: a ring under NCCL.
    const Lowered ring = parseTorchCommsCsv(
        "0F0,0SEND_F0,0F1,0SEND_F1,0F2,0RECV_B0,0I0,0W0,0SEND_F2,0RECV_B1,0I1,0W1,0RECV_B2,0I2,0W2\n"
        "1RECV_F0,1F0,1I0,1SEND_B0,1W0,1RECV_F1,1F1,1I1,1SEND_B1,1W1,1RECV_F2,1F2,1I2,1SEND_B2,1W2\n",
        "ring.csv");
    const ReplayResult nccl = replay(ring, {CommSemantics::Nccl, true});
    CHECK(nccl.id == "lower.deadlock");
    CHECK(nccl.message == "deadlock under NCCL semantics: ranks wait on each other in a ring: rank 0 waits "
                          "at 3 (SEND_F s0->s1 mb1 "
                          "to r1 tag 2 slot 1 bytes 1) for rank 1 to post the matching RECV_F; rank 1 waits "
                          "at 3 (SEND_B s1->s0 "
                          "mb0 to r0 tag 1 slot -1 bytes 1) for rank 0 to post the matching RECV_B");
    CHECK(replay(ring, {CommSemantics::Mpi, true}).ok());
}

TEST_CASE("Compute+comms files are told apart from compute-only ones", "[torch_comms_csv]") {
    CHECK(looksLikeTorchCommsCsv("0F0,0SEND_F0\n"));
    CHECK(looksLikeTorchCommsCsv("0F0,0B0,0REDUCE_GRAD\n"));
    CHECK_FALSE(looksLikeTorchCommsCsv("0F0,0B0\n1F0,1B0\n"));
}
