// torch.distributed.pipelining compute-only CSV: round trips of every single-pipe generator,
// the two real torch artifacts, and hand-written bad files each refused at the exact cell.
#include "error.h"
#include "file_io.h"
#include "generators/registry.h"
#include "io/schedule_file.h"
#include "io/torch_csv.h"
#include "sim/simulator.h"
#include "test_support.h"
#include "validate/validator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

using namespace stagecraft;
using stagecraft::test::forEachAcceptedParams;

namespace {

std::string artifact(const std::string& name) {
    return readTextFile(std::filesystem::path(STAGECRAFT_REFERENCE_DIR) / "torch-csv" / name);
}

/// errorSummary of parsing `text` as a torch CSV.
std::string csvError(const std::string& text, const TorchCsvOptions& options = {}) {
    return test::errorSummary([&] { parseTorchCsv(text, "t.csv", options); });
}

Op op(OpKind kind, int stage, int mb, int chunk) {
    return Op{kind, 0, std::uint16_t(chunk), stage, mb};
}

} // namespace

TEST_CASE("CSV round trip of every single-pipe generator over p 1..8, m 1..16, v 1..4", "[schedule-files]") {
    int checked = 0;
    forEachAcceptedParams(8, 16, 4, [&](const GeneratorInfo& info, const ScheduleParams& params) {
        if (info.pipes != 1) return;
        INFO(info.name << " p=" << params.pp << " m=" << params.microbatches << " v=" << params.chunks);
        const Schedule s = generateSchedule(info.name, params);
        if (info.recomputes) { // torch has no recompute action: refused, and JSON's to use
            CHECK_THROWS_WITH(scheduleToTorchCsv(s), Catch::Contains("csv.recompute"));
            return;
        }
        if (s.sequenceSlices > 1) { // nor a slice index
            CHECK_THROWS_WITH(scheduleToTorchCsv(s), Catch::Contains("csv.slices"));
            return;
        }
        Schedule back = parseTorchCsv(scheduleToTorchCsv(s), "round-trip.csv");
        REQUIRE(back.name == "torch-csv");
        REQUIRE(back.placement == s.placement);
        REQUIRE(back.order == s.order);
        back.name = s.name;
        REQUIRE(back == s);
        ++checked;
    });
    // gpipe, 1f1b, zb-h1, zb-v, zb-v-half, zb-v-min, zb-auto: 128 each; breadth-first 512; interleaved and
    // interleaved-zb (v >= 2, equal rounds: m % max(1, m / p) == 0) 3 x 106 each; zb-h2 and dualpipev (m >=
    // 2p) 64 each; hanayo (v = 2 or 4) 2 x 128; v-1f1b (p >= 2) 112.
    CHECK(checked == 7 * 128 + 512 + 2 * 3 * 106 + 2 * 64 + 2 * 128 + 112);
}

TEST_CASE("CSV text of a small schedule", "[schedule-files]") {
    CHECK(scheduleToTorchCsv(generateSchedule("1f1b", {2, 3, 1})) == "0F0,0F1,0B0,0F2,0B1,0B2\n"
                                                                     "1F0,1B0,1F1,1B1,1F2,1B2\n");
    CHECK(scheduleToTorchCsv(generateSchedule("zb-h1", {2, 2, 1})) == "0F0,0F1,0I0,0W0,0I1,0W1\n"
                                                                      "1F0,1I0,1F1,1I1,1W0,1W1\n");
}

TEST_CASE("Bidirectional schedules are refused by the CSV writer", "[schedule-files]") {
    for (const char* name : {"chimera", "bitpipe"}) {
        const Schedule s = generateSchedule(name, {4, 4, 1});
        try {
            scheduleToTorchCsv(s);
            FAIL("accepted");
        } catch (const ValidationError& e) {
            CHECK(e.id() == "csv.bidirectional");
            CHECK(e.field() == "pipes");
            CHECK(e.message() ==
                  "schedule '" + std::string(name) +
                      "' has 2 pipes: torch's compute-only CSV has no way to express a second pipe "
                      "(an action names a stage, not a pipe); save it as .json, Stagecraft's "
                      "schedule format");
        }
    }
}

TEST_CASE("GradSync and Optimizer ops are left out of the CSV", "[schedule-files]") {
    Schedule s = generateSchedule("1f1b", {2, 2, 1});
    s.order[0].push_back(Op{OpKind::GradSync, 0, 0, 0, -1});
    s.order[0].push_back(Op{OpKind::Optimizer, 0, 0, 0, -1});
    CHECK(scheduleToTorchCsv(s) == "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
}

TEST_CASE("The zb1p artifact loads, validates and simulates", "[schedule-files]") {
    const Schedule s = parseTorchCsv(artifact("zb1p_2rank_2stagep_compute.csv"), "zb1p.csv");
    CHECK(s.name == "torch-csv");
    CHECK(s.devices == 2);
    CHECK(s.pipes == 1);
    CHECK(s.stagesPerPipe == 4);
    CHECK(s.microbatches == 8);
    CHECK(s.chunksPerDevice == 2);
    CHECK(s.splitBackward);
    CHECK(s.placement == std::vector<std::vector<StageSlot>>{loopedPlacement(2, 4)});
    CHECK(s.opCount() == std::size_t{4} * 8 * 3);
    CHECK(findProblems(s).empty());
    // Row 1 "0F0,0F1,2F0,,2F1,2B0,2W0": the idle cell is skipped and the older B (followed by its W)
    // is the input-gradient part.
    const std::vector<Op> head0{op(OpKind::F, 0, 0, 0), op(OpKind::F, 0, 1, 0), op(OpKind::F, 2, 0, 1),
                                op(OpKind::F, 2, 1, 1), op(OpKind::B, 2, 0, 1), op(OpKind::W, 2, 0, 1)};
    CHECK(std::vector<Op>(s.order[0].begin(), s.order[0].begin() + 6) == head0);
    // Row 2 starts with an idle cell: ",1F0,1F1,3F0,3B0".
    const std::vector<Op> head1{op(OpKind::F, 1, 0, 0), op(OpKind::F, 1, 1, 0), op(OpKind::F, 3, 0, 1),
                                op(OpKind::B, 3, 0, 1)};
    CHECK(std::vector<Op>(s.order[1].begin(), s.order[1].begin() + 4) == head1);
    // Written back in today's naming.
    const std::string csv = scheduleToTorchCsv(s);
    CHECK(csv.substr(0, csv.find('\n')).substr(0, 35) == "0F0,0F1,2F0,2F1,2I0,2W0,0F2,2I1,2W1");
    const Timeline timeline = simulate(s, fullStageCosts(s, 1, 1, 1));
    CHECK(timeline.makespan() > 0.0);
}

TEST_CASE("The DualPipeV artifact: overlapped cells read as slots, refused or serialized on request",
          "[schedule-files]") {
    const std::string text = artifact("dualpipev_4rank_10mb.csv");
    TorchCsvOptions refuse;
    refuse.overlap = OverlapPolicy::Refuse;
    CHECK(
        csvError(text, refuse) ==
        "csv.overlap 1:18 | t.csv line 1, column 18: '(0F7;7B3)OVERLAP_F_B' runs its actions overlapped in "
        "one slot (DualPipeV's F/B overlap), which this reader was told to refuse; read it as an overlapped "
        "slot (the default) or, with --serialize-overlap, as its sub-actions one after the other (0F7 then "
        "7B3)");
    // By default each compound cell is one overlapped slot: the same ops, and the slot's head.
    const Schedule kept = parseTorchCsv(text, "dualpipev.csv");
    CHECK(kept.overlapped.size() == 9 + 10 + 11 + 11);
    CHECK(std::count(kept.overlapped.begin(), kept.overlapped.end(), op(OpKind::F, 0, 7, 0)) == 1);
    // A compound cell that is not one forward and one whole backward cannot be a slot.
    CHECK(csvError("(0F0;1F0)OVERLAP_F_B\n") ==
          "csv.overlap 1:1 | t.csv line 1, column 1: '(0F0;1F0)OVERLAP_F_B': an overlapped slot is one "
          "forward and one whole backward, as in '(0F7;7B3)OVERLAP_F_B'; --serialize-overlap reads other "
          "compound cells as their sub-actions one after the other");

    TorchCsvOptions serialize;
    serialize.overlap = OverlapPolicy::Serialize;
    serialize.name = "dualpipev";
    const Schedule s = parseTorchCsv(text, "dualpipev.csv", serialize);
    CHECK(s.name == "dualpipev");
    CHECK(s.devices == 4);
    CHECK(s.stagesPerPipe == 8);
    CHECK(s.microbatches == 10);
    CHECK(s.splitBackward);
    CHECK(s.placement == std::vector<std::vector<StageSlot>>{vShapePlacement(4)});
    CHECK(s.opCount() == std::size_t{8} * 10 * 3);
    // Serialized, the V schedule's order is dependency-consistent and deadlock-free.
    CHECK(findProblems(s).empty());
    // "...,7F3,(0F7;7B3)OVERLAP_F_B,(7F4;0B0)OVERLAP_F_B": sub-actions in order; the full B of a
    // split schedule is its input part at once followed by its weight part.
    const std::vector<Op> expected{op(OpKind::F, 7, 3, 1), op(OpKind::F, 0, 7, 0), op(OpKind::B, 7, 3, 1),
                                   op(OpKind::W, 7, 3, 1), op(OpKind::F, 7, 4, 1), op(OpKind::B, 0, 0, 0),
                                   op(OpKind::W, 0, 0, 0)};
    CHECK(std::vector<Op>(s.order[0].begin() + 16, s.order[0].begin() + 23) == expected);
    CHECK(s.overlapped.empty());
    CHECK(s.order == kept.order);
    const Timeline timeline = simulate(s, fullStageCosts(s, 1, 1, 1));
    CHECK(timeline.makespan() > 0.0);
}

TEST_CASE("CSV reading: BOM, CRLF, blanks, idle cells and trailing newlines", "[schedule-files]") {
    const Schedule plain = parseTorchCsv("0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n", "a.csv");
    const Schedule messy =
        parseTorchCsv("\xEF\xBB\xBF,0F0, 0F1\t,,0B0 ,0B1,\r\n1F0,1B0,,1F1,1B1\r\n\r\n\n", "b.csv");
    CHECK(messy == plain);
    CHECK(parseTorchCsv("0F0,0B0", "c.csv").order ==
          std::vector<std::vector<Op>>{{op(OpKind::F, 0, 0, 0), op(OpKind::B, 0, 0, 0)}});
}

TEST_CASE("Bad CSVs are refused at the exact cell with the rule they break", "[schedule-files]") {
    // Trailing garbage, which torch's prefix match would silently drop.
    CHECK(csvError("0F0,0F1x,1F0") ==
          "csv.cell 1:2 | t.csv line 1, column 2: '0F1x': unexpected 'x' after the micro-batch number");
    CHECK(csvError("0F0,0X1") == "csv.cell 1:2 | t.csv line 1, column 2: '0X1': 'X' is not a compute action "
                                 "type; expected F, I, B or W after the stage number");
    CHECK(csvError("0F0,0B0\n1F0,1SEND_F0,1B0") ==
          "csv.comms 2:2 | t.csv line 2, column 2: '1SEND_F0' is torch's SEND_F action, which belongs to the "
          "compute+comms format: compute+comms CSV is not supported; export the compute-only schedule");
    CHECK(
        csvError("0F0,1UNSHARD") ==
        "csv.comms 1:2 | t.csv line 1, column 2: '1UNSHARD' is torch's UNSHARD action, which belongs to the "
        "compute+comms format: compute+comms CSV is not supported; export the compute-only schedule");
    CHECK(csvError("0F0,0F1,0B0,0B1\n1F0,0F2") == "csv.stage 2:2 | t.csv line 2, column 2: '0F2': stage 0 is "
                                                  "on rank 0 ('0F0' at row 1, column 1) and on "
                                                  "rank 1: a stage runs on one rank");
    CHECK(csvError("0F0,0F0,0B0") ==
          "csv.duplicate 1:2 | t.csv line 1, column 2: '0F0' appears twice (first at "
          "row 1, column 1): each action runs once");
    CHECK(csvError("0F0,0F1,0B0") == "csv.count 1:2 | t.csv line 1, column 2: '0F1' has no backward: each "
                                     "micro-batch of a stage needs a B, "
                                     "or an I and a W (#B + #I must equal the number of micro-batches)");
    CHECK(csvError("0F0,0I0") ==
          "csv.count 1:2 | t.csv line 1, column 2: '0I0' has no weight-gradient action W "
          "of the same stage and micro-batch (#I must equal #W)");
    CHECK(csvError("0F0,0W0,0B0") == "csv.count 1:2 | t.csv line 1, column 2: '0W0' has no input-gradient "
                                     "action before it on its rank: a W "
                                     "follows its I (or, in the older naming, its B) (#I must equal #W)");
    CHECK(csvError("0F0,0B0,0W0,0I0") == "csv.count 1:4 | t.csv line 1, column 4: '0I0' and '0B0' (at row 1, "
                                         "column 2) are two backwards of one "
                                         "micro-batch: a backward is either whole (B) or split (I, then W)");
    CHECK(csvError("1F0,0B0") == "csv.count 1:2 | t.csv line 1, column 2: '0B0' has no forward: its stage "
                                 "runs no F of that micro-batch");
    CHECK(csvError("0F0,0B0,0F2,0B2") == "csv.count 1:0 | t.csv line 1: stage 0 has 2 forward actions (F), "
                                         "expected 3: one per micro-batch 0..2 "
                                         "(the largest micro-batch index in the file is 2)");
    CHECK(csvError("0F0,0B0,2F0,2B0") ==
          "csv.stage 0:0 | t.csv: stage 1 has no action, but stage 2 has: stages "
          "are numbered 0..S-1 and each runs on one rank");
    CHECK(csvError("0F0,p1:0F1") ==
          "csv.pipe 1:2 | t.csv line 1, column 2: 'p1:0F1': torch's CSV has no second pipe (the 'p<pipe>:' "
          "prefix is Stagecraft's); save bidirectional schedules as .json");
    CHECK(csvError("0F0,0B0\n,,\n1F0,1B0") == "csv.row 2:0 | t.csv line 2: row 2 has no action: every row is "
                                              "a rank that runs at least one stage (an "
                                              "empty cell is an idle step, an empty row is not a rank)");
    CHECK(csvError("0F0,(0F1;;0B0)OVERLAP_F_B") ==
          "csv.cell 1:2 | t.csv line 1, column 2: '(0F1;;0B0)OVERLAP_F_B': a sub-action is empty");
    CHECK(csvError("0F0,(0F1;0B0)OVERLAP") == "csv.cell 1:2 | t.csv line 1, column 2: '(0F1;0B0)OVERLAP': a "
                                              "compound action is '(' actions separated "
                                              "by ';' ')OVERLAP_F_B', as in '(0F7;7B3)OVERLAP_F_B'");
    CHECK(csvError("0F0,(0F1;0SEND_B1)OVERLAP_F_B") ==
          "csv.comms 1:2 | t.csv line 1, column 2: '(0F1;0SEND_B1)OVERLAP_F_B': sub-action '0SEND_B1' is "
          "torch's "
          "SEND_B action, which belongs to the compute+comms format: compute+comms CSV is not supported; "
          "export "
          "the compute-only schedule");
    CHECK(csvError("") ==
          "csv.empty 0:0 | t.csv: the file has no action: a compute-only schedule CSV has one row "
          "of actions per rank");
    std::string manyRows;
    for (int r = 0; r <= kMaxDevices; ++r) manyRows += std::to_string(r) + "F0," + std::to_string(r) + "B0\n";
    CHECK(csvError(manyRows) == "csv.size 4097:0 | t.csv line 4097: more than 4096 rows: a row is a rank and "
                                "the limit is 4096 ranks");
    CHECK(csvError("0F0,70000F0") == "csv.size 1:2 | t.csv line 1, column 2: '70000F0': stages must be below "
                                     "65536 and micro-batches below 1048576");
    CHECK(csvError("0F0,0F2000000") ==
          "csv.size 1:2 | t.csv line 1, column 2: '0F2000000': stages must be below "
          "65536 and micro-batches below 1048576");
}

TEST_CASE("Well-formed CSVs the validator refuses name the row and column of the op", "[schedule-files]") {
    // The backward before its forward on the same rank.
    CHECK(csvError("0B0,0F0") ==
          "csv.schedule [row 1, column 1] | t.csv row 1, column 1: device 0 position 0: "
          "0B0 runs before its dependency 0F0 at position 1 of the same device");
    // Rank 0 waits for 1B0, rank 1 first waits for 0F1: a deadlock, reported at rank 0's blocked cell.
    CHECK(csvError("0F0,0B0,0F1,0B1\n1F1,1B1,1F0,1B0") ==
          "csv.schedule [row 1, column 2] | t.csv row 1, column 2: deadlock: devices wait on each other in a "
          "ring: "
          "device 0 waits at position 1 (0B0) for 1B0 at position 3 of device 1; device 1 waits at "
          "position 0 "
          "(1F1) for 0F1 at position 2 of device 0");
    // Idle cells shift the column away from the position in the device's order.
    CHECK(csvError(",,0F0,,0B1,0F1,0B0") ==
          "csv.schedule [row 1, column 5] | t.csv row 1, column 5: device 0 position 1: 0B1 runs before its "
          "dependency 0F1 at position 2 of the same device");
}

TEST_CASE("Schedule files dispatch on the extension", "[schedule-files]") {
    const auto dir = std::filesystem::temp_directory_path() / "stagecraft-schedule-file-test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const Schedule s = generateSchedule("zb-v", {4, 8, 1});
    writeScheduleFile(s, dir / "zbv.csv");
    writeScheduleFile(s, dir / "zbv.JSON");
    Schedule fromCsv = readScheduleFile(dir / "zbv.csv");
    fromCsv.name = s.name;
    CHECK(fromCsv == s);
    CHECK(readScheduleFile(dir / "zbv.JSON") == s);

    const Schedule chimera = generateSchedule("chimera", {4, 4, 1});
    CHECK_THROWS_WITH(writeScheduleFile(chimera, dir / "chimera.csv"),
                      Catch::Contains("[csv.bidirectional]"));
    CHECK_FALSE(std::filesystem::exists(dir / "chimera.csv"));
    try {
        writeScheduleFile(s, dir / "zbv.txt");
        FAIL("accepted");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "schedule_file.extension");
        CHECK(e.message() == "'" + (dir / "zbv.txt").string() +
                                 "': unknown extension '.txt': a schedule file is .csv (torch.distributed."
                                 "pipelining's compute-only CSV) or .json (Stagecraft's schedule format)");
    }
    CHECK_FALSE(std::filesystem::exists(dir / "zbv.txt"));
    CHECK_THROWS_WITH(readScheduleFile(dir / "schedule"), Catch::Contains("no extension"));
    CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) ==
          2);

    TorchCsvOptions serialize;
    serialize.overlap = OverlapPolicy::Serialize;
    const auto artifacts = std::filesystem::path(STAGECRAFT_REFERENCE_DIR) / "torch-csv";
    TorchCsvOptions refuse;
    refuse.overlap = OverlapPolicy::Refuse;
    CHECK_THROWS_WITH(readScheduleFile(artifacts / "dualpipev_4rank_10mb.csv", refuse),
                      Catch::Contains("[csv.overlap]"));
    CHECK(readScheduleFile(artifacts / "dualpipev_4rank_10mb.csv", serialize).stagesPerPipe == 8);
    CHECK(readScheduleFile(artifacts / "dualpipev_4rank_10mb.csv").overlapped.size() == 41);
    std::filesystem::remove_all(dir);
}

TEST_CASE("REDUCE_GRAD cells are gradient syncs; WAIT_REDUCE_GRAD follows its REDUCE_GRAD",
          "[schedule-files]") {
    // torch's GPipe and 1F1B orders end every rank with the stage's reduction and its wait, also in
    // the compute-only file; the sync sits where the cell is, the wait adds no op.
    const Schedule s = parseTorchCsv("0F0,0F1,0B0,0B1,0REDUCE_GRAD,0WAIT_REDUCE_GRAD\r\n"
                                     ",1F0,1B0,1F1,1B1,1REDUCE_GRAD,1WAIT_REDUCE_GRAD\r\n",
                                     "t.csv");
    CHECK(s.order == std::vector<std::vector<Op>>{
                         {op(OpKind::F, 0, 0, 0), op(OpKind::F, 0, 1, 0), op(OpKind::B, 0, 0, 0),
                          op(OpKind::B, 0, 1, 0), Op{OpKind::GradSync, 0, 0, 0, -1}},
                         {op(OpKind::F, 1, 0, 0), op(OpKind::B, 1, 0, 0), op(OpKind::F, 1, 1, 0),
                          op(OpKind::B, 1, 1, 0), Op{OpKind::GradSync, 0, 0, 1, -1}}});
    CHECK(findProblems(s).empty());
    // A reduction without its wait is read (the IR's sync is waited for by the optimizer step).
    CHECK(parseTorchCsv("0F0,0B0,0REDUCE_GRAD", "t.csv").order[0].back() ==
          Op{OpKind::GradSync, 0, 0, 0, -1});
    // The compute order is written back without the reductions (torch lowers its own).
    CHECK(scheduleToTorchCsv(s) == "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
    // In a split schedule the sync follows the last W.
    const Schedule split = parseTorchCsv("0F0,0I0,0W0,0REDUCE_GRAD,0WAIT_REDUCE_GRAD", "t.csv");
    CHECK(split.order[0].back() == Op{OpKind::GradSync, 0, 0, 0, -1});
    CHECK(findProblems(split).empty());

    CHECK(csvError("0F0,0B0,0WAIT_REDUCE_GRAD,0REDUCE_GRAD") ==
          "csv.sync 1:3 | t.csv line 1, column 3: '0WAIT_REDUCE_GRAD' waits for the gradient reduction of "
          "stage "
          "0, but no '0REDUCE_GRAD' comes before it on its row: a WAIT_REDUCE_GRAD follows its REDUCE_GRAD");
    CHECK(csvError("0F0,0B0,0REDUCE_GRAD,0REDUCE_GRAD") ==
          "csv.duplicate 1:4 | t.csv line 1, column 4: '0REDUCE_GRAD' appears twice (first at row 1, column "
          "3): "
          "each action runs once");
    CHECK(csvError("0F0,0B0,0REDUCE_GRAD,0WAIT_REDUCE_GRAD,,0WAIT_REDUCE_GRAD") ==
          "csv.duplicate 1:6 | t.csv line 1, column 6: '0WAIT_REDUCE_GRAD' appears twice (first at row 1, "
          "column 4): each action runs once");
    CHECK(csvError("0F0,0B0,0REDUCE_GRAD3") ==
          "csv.cell 1:3 | t.csv line 1, column 3: '0REDUCE_GRAD3': unexpected '3' after REDUCE_GRAD: "
          "REDUCE_GRAD names a stage, not a micro-batch (it covers all of them), as in '2REDUCE_GRAD'");
    CHECK(csvError("0F0,0B0\n1F0,1B0,0REDUCE_GRAD") ==
          "csv.stage 2:3 | t.csv line 2, column 3: '0REDUCE_GRAD': stage 0 is on rank 0 ('0F0' at row 1, "
          "column 1) and on rank 1: a stage runs on one rank");
    CHECK(
        csvError("0F0,(0B0;0REDUCE_GRAD)OVERLAP_F_B") ==
        "csv.cell 1:2 | t.csv line 1, column 2: '(0B0;0REDUCE_GRAD)OVERLAP_F_B': sub-action '0REDUCE_GRAD': "
        "an overlapped cell runs compute actions (F, I, B, W) only; a gradient reduction is a cell of its "
        "own");
    CHECK(csvError("0F0,0B0,99999999999REDUCE_GRAD") ==
          "csv.size 1:3 | t.csv line 1, column 3: '99999999999REDUCE_GRAD': stages must be below 65536");
    // Before the stage's last backward, the sync has gradients still to come.
    CHECK(csvError("0F0,0F1,0B0,0REDUCE_GRAD,0B1") ==
          "csv.schedule [row 1, column 4] | t.csv row 1, column 4: device 0 position 3: 0SYNC runs "
          "before its dependency 0B1 at position 4 of the same device");
}

TEST_CASE("torch's send waits are named as the compute+comms actions they are", "[schedule-files]") {
    CHECK(csvError("0F0,0B0,0WAIT_SEND_F0") ==
          "csv.comms 1:3 | t.csv line 1, column 3: '0WAIT_SEND_F0' is torch's WAIT_SEND_F action, which "
          "belongs to the compute+comms format: compute+comms CSV is not supported; export the compute-only "
          "schedule");
    CHECK(csvError("0F0,0B0,1WAIT_SEND_B3") ==
          "csv.comms 1:3 | t.csv line 1, column 3: '1WAIT_SEND_B3' is torch's WAIT_SEND_B action, which "
          "belongs to the compute+comms format: compute+comms CSV is not supported; export the compute-only "
          "schedule");
}

TEST_CASE("A backward without its forward names the row that lacks the forward", "[schedule-files]") {
    // Three rows run micro-batches 0..1, the last runs 3F1..3F2: the largest index (2) comes from the
    // wrong row, so the blame goes to the row whose backward has no forward, not to row 1.
    CHECK(csvError("0F0,0F1,0B0,0B1\n1F0,1F1,1B0,1B1\n2F1,2B0,2F2,2B1") ==
          "csv.count 3:2 | t.csv line 3, column 2: '2B0' has no forward: rank 2 runs 2F1..2F2 and never 2F0");
    CHECK(csvError("0F0,0B0,0F2,0I1,0W1,0B2") ==
          "csv.count 1:4 | t.csv line 1, column 4: '0I1' has no forward: rank 0 runs 2 forwards from 0F0 to "
          "0F2 and never 0F1");
    CHECK(csvError("0F1,0B0,0B1") ==
          "csv.count 1:2 | t.csv line 1, column 2: '0B0' has no forward: rank 0 runs only 0F1 and never 0F0");
    // A micro-batch a stage does not run at all is still counted against the stage.
    CHECK(csvError("0F0,0B0\n1F0,1B0,1F1,1B1") ==
          "csv.count 1:0 | t.csv line 1: stage 0 has 1 forward actions (F), expected 2: one per micro-batch "
          "0..1 (the largest micro-batch index in the file is 1)");
}
