// The timing of executed programs (passes/program_timing) against hand-worked times, and the
// runtime fit (eval/runtime_fit) against runs whose costs are known: a run made by timing
// programs with given costs must be fitted back to exactly those costs, with no residual.
#include "error.h"
#include "eval/runtime_fit.h"
#include "eval/runtime_fit_chart.h"
#include "eval/shared_processors.h"
#include "file_io.h"
#include "io/executed_program.h"
#include "io/torch_comms_csv.h"
#include "passes/program_timing.h"
#include "project/runtime_fit_file.h"
#include "test_support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

using namespace stagecraft;

namespace {

RuntimeCosts flatCosts(int stages, double f, double b) {
    RuntimeCosts c;
    c.stages.assign(std::size_t(stages), StageCompute{f, b, -1, -1});
    return c;
}

/// The ranges a torch trace would hold of `timing`, repeated `iterations` times one after the
/// other (each iteration 1000 µs after the previous one ended).
std::vector<RankTrace> asTrace(const Lowered& l, const ProgramTiming& timing, int iterations) {
    std::vector<RankTrace> ranks(std::size_t(l.ranks));
    double offset = 0;
    for (int k = 0; k < iterations; ++k) {
        for (int r = 0; r < l.ranks; ++r) {
            RankTrace& t = ranks[std::size_t(r)];
            t.rank = r;
            t.source = "rank" + std::to_string(r);
            const auto& ins = l.programs[std::size_t(r)].instructions;
            for (std::size_t i = 0; i < ins.size(); ++i) {
                const Instruction& in = ins[i];
                const TimedInstruction& ti = timing.ranks[std::size_t(r)][i];
                ActionRange a;
                a.stage = in.stage;
                a.mb = in.mb;
                a.start = offset + ti.start;
                a.end = offset + ti.end;
                const bool fwd = in.dir == Direction::F;
                switch (in.kind) {
                case InstrKind::Compute:
                    a.kind = in.op == OpKind::F   ? RangeKind::F
                             : in.op == OpKind::W ? RangeKind::W
                             : l.splitBackward    ? RangeKind::I
                                                  : RangeKind::B;
                    a.wait = ti.begin - ti.start;
                    break;
                case InstrKind::Send:
                    a.kind = fwd ? RangeKind::SendF : RangeKind::SendB;
                    break;
                case InstrKind::Recv:
                    a.kind = fwd ? RangeKind::RecvF : RangeKind::RecvB;
                    break;
                case InstrKind::Wait:
                    a.kind = fwd ? RangeKind::WaitSendF : RangeKind::WaitSendB;
                    break;
                case InstrKind::GradSync:
                    a.kind = RangeKind::ReduceGrad;
                    a.mb = -1;
                    break;
                case InstrKind::Unshard:
                    a.kind = RangeKind::Unshard;
                    break;
                case InstrKind::Reshard:
                    a.kind = RangeKind::Reshard;
                    break;
                case InstrKind::Optimizer:
                    continue;
                }
                t.ranges.push_back(a);
            }
        }
        offset += timing.makespan + 1000;
    }
    return ranks;
}

/// Costs to make a run from (4 stages), which the fit must find again.
RuntimeCosts knownCosts() {
    RuntimeCosts c;
    c.stages = {StageCompute{1000, 2100, -1, -1}, StageCompute{1100, 2000, -1, -1},
                StageCompute{900, 1900, -1, -1}, StageCompute{1300, 2500, -1, -1}};
    c.actions = ActionCosts{50, 120, 200, 0, 400, 10, 12};
    c.transfer.latency = 300;
    return c;
}

Lowered programsOf(const std::string& csv) {
    return parseTorchCommsCsv(csv, "test.csv");
}

/// The programs torch's Interleaved1F1B ran (pp = 2, m = 4, v = 2), read off its own trace.
Lowered interleavedPrograms() {
    const auto dir = std::filesystem::path(STAGECRAFT_REFERENCE_DIR) / "torch-traces";
    return programsOf(executedActionsCsv(
        readTorchRun({dir / "Interleaved1F1B_pp2_m4_rank0.json", dir / "Interleaved1F1B_pp2_m4_rank1.json"}),
        0));
}

} // namespace

TEST_CASE("a torch program is timed action by action: posts, rendezvous, waits inside compute",
          "[program_timing]") {
    // Rank 0 runs stage 0, rank 1 stage 1; one micro-batch.
    const Lowered l = programsOf("0F0,0SEND_F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n");
    RuntimeCosts c = flatCosts(2, 10, 20);
    c.actions.gap = 1;
    c.actions.postRecv = 2;
    c.actions.postSend = 3;
    c.transfer.latency = 5;
    const ProgramTiming t = timePrograms(l, c);
    // Worked by hand: rank 0 posts SEND_F0 at 15; rank 1 posted RECV_F0 at 3, so F0 arrives at
    // 20 and 1F0 runs 20..30, 1B0 31..51, 1SEND_B0 posts at 55; rank 0 posted RECV_B0 at 18, so
    // the gradient arrives at 60 and 0B0 runs 60..80.
    REQUIRE(t.ranks.size() == 2);
    CHECK(t.ranks[0][0].end == Approx(11));
    CHECK(t.ranks[0][1].end == Approx(15));
    CHECK(t.ranks[0][2].end == Approx(18));
    CHECK(t.ranks[0][3].start == Approx(19));
    CHECK(t.ranks[0][3].begin == Approx(60));
    CHECK(t.ranks[0][3].end == Approx(80));
    CHECK(t.ranks[1][1].start == Approx(4));
    CHECK(t.ranks[1][1].begin == Approx(20));
    CHECK(t.ranks[1][2].end == Approx(51));
    CHECK(t.ranks[1][3].end == Approx(55));
    CHECK(t.makespan == Approx(80));
    // The timeline: four compute events at their own work, two transfers from both posts to arrival.
    int transfers = 0;
    for (const TimelineEvent& e : t.timeline.events)
        if (e.lane == Lane::Comm) {
            ++transfers;
            CHECK(e.end - e.start == Approx(5));
        }
    CHECK(transfers == 2);
    CHECK(t.timeline.events.size() == 6);
}

TEST_CASE("a whole backward of a split program is timed at its whole cost, shared by its halves",
          "[program_timing]") {
    // Rank 1's 1B0 is a whole backward (torch's FULL_BACKWARD) in a program whose other backward
    // is split (0I0, 0W0): lowered, its B and W, which torch runs in one autograd pass.
    const Lowered l = programsOf("0F0,0SEND_F0,0RECV_B0,0I0,0W0\n1RECV_F0,1F0,1B0,1SEND_B0\n");
    REQUIRE(l.splitBackward);
    const auto& rank0 = l.programs[0].instructions;
    const auto& rank1 = l.programs[1].instructions;
    REQUIRE(rank1.size() == 5);
    CHECK((rank1[2].op == OpKind::B && rank1[2].wholeBackward));
    CHECK((rank1[3].op == OpKind::W && rank1[3].wholeBackward));
    CHECK(std::none_of(rank0.begin(), rank0.end(), [](const Instruction& in) { return in.wholeBackward; }));
    RuntimeCosts c;
    c.stages = {StageCompute{10, -1, 5, 7}, StageCompute{10, 25, 12, 18}};
    const ProgramTiming t = timePrograms(l, c);
    // Worked by hand (no gaps, posts or latency): 0F0 0..10; 1F0 10..20; the whole 1B0 takes 25,
    // its halves in the proportion of I to W (12 : 18): 20..30 and 30..45, not I + W = 30; the
    // gradient arrives at 45, 0I0 45..50, 0W0 50..57.
    CHECK(t.ranks[1][2].begin == Approx(20));
    CHECK(t.ranks[1][2].end == Approx(30));
    CHECK(t.ranks[1][3].end == Approx(45));
    CHECK(t.makespan == Approx(57));
    // Without a whole backward cost, its halves take a split I and W.
    c.stages[1].b = -1;
    CHECK(timePrograms(l, c).makespan == Approx(62));
}

TEST_CASE("ranks that share processors slow each other down while both compute", "[program_timing]") {
    // Two micro-batches through two stages, no framework or transfer time: F = 10, B = 20.
    const Lowered l = programsOf("0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1\n"
                                 "1RECV_F0,1F0,1RECV_F1,1F1,1B0,1SEND_B0,1B1,1SEND_B1\n");
    RuntimeCosts c = flatCosts(2, 10, 20);
    // One processor each (worked by hand): 0F0 0..10, 0F1 10..20 and 1F0 10..20, 1F1 20..30,
    // 1B0 30..50, 1B1 50..70 and 0B0 50..70, 0B1 70..90.
    CHECK(timePrograms(l, c).makespan == Approx(90));
    // One processor for both: 0F1 and 1F0 run together at half speed (10..30), 1F1 30..40 and
    // 1B0 40..60 alone, 0B0 and 1B1 together 60..100, 0B1 100..120.
    c.cores = 1;
    const ProgramTiming one = timePrograms(l, c);
    CHECK(one.makespan == Approx(120));
    CHECK(one.ranks[0][2].begin == Approx(10));
    CHECK(one.ranks[0][2].end == Approx(30));
    CHECK(one.ranks[1][1].end == Approx(30));
    CHECK(one.ranks[1][4].end == Approx(60));
    // 1.5 processors: together at 3/4 speed, 10 units in 13.33 and 20 in 26.67.
    c.cores = 1.5;
    CHECK(timePrograms(l, c).makespan == Approx(10 + 40.0 / 3 + 30 + 80.0 / 3 + 20));
    // As many processors as ranks: no one waits for a processor.
    c.cores = 2;
    CHECK(timePrograms(l, c).makespan == Approx(90));
}

TEST_CASE("the work of a measured interval counts the ranks busy beside it", "[runtime_fit]") {
    const std::vector<BusyIntervals> busy{{{0, 10}}, {{5, 15}}};
    const SharedProcessorClock one(busy, 1);
    CHECK(one.work(0, 10) == Approx(7.5)); // 5 alone, 5 at half speed
    CHECK(one.work(5, 15) == Approx(7.5));
    CHECK(one.work(0, 5) == Approx(5));
    CHECK(SharedProcessorClock(busy, 2).work(0, 10) == Approx(10));
    CHECK(SharedProcessorClock(busy, 0).work(0, 10) == Approx(10));
    // Back-to-back intervals of one rank are one busy rank, not two.
    const SharedProcessorClock chained({{{0, 5}, {5, 10}}, {{0, 10}}}, 1);
    CHECK(chained.work(0, 10) == Approx(5));
}

TEST_CASE("timing refuses a compute op without a cost and names it", "[program_timing]") {
    const Lowered l = programsOf("0F0,0SEND_F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n");
    RuntimeCosts c = flatCosts(2, 10, 20);
    c.stages[1].b = -1;
    try {
        timePrograms(l, c);
        FAIL("no error");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "timing.cost");
        CHECK(std::string(e.what()).find("B on stage 1") != std::string::npos);
    }
}

TEST_CASE("a run made by the model is fitted back to its own costs with no residual", "[runtime_fit]") {
    // The programs torch's Interleaved1F1B ran (pp = 2, m = 4, v = 2), read off its own trace.
    const auto dir = std::filesystem::path(STAGECRAFT_REFERENCE_DIR) / "torch-traces";
    const std::string csv = executedActionsCsv(
        readTorchRun({dir / "Interleaved1F1B_pp2_m4_rank0.json", dir / "Interleaved1F1B_pp2_m4_rank1.json"}),
        0);
    CHECK(csv.substr(0, 40) == "0UNSHARD,2UNSHARD,0F0,0SEND_F0,2RECV_F0,");
    const Lowered l = programsOf(csv);
    const RuntimeCosts truth = knownCosts();
    const ProgramTiming timing = timePrograms(l, truth);
    const std::vector<RankTrace> run = asTrace(l, timing, 3);

    // The executed program read back from the ranges is the file's.
    CHECK(executedPrograms(run, 1, "run").programs == l.programs);

    const RuntimeFit fit = fitRuntime(run, "run");
    CHECK(fit.iterations == 3);
    REQUIRE(fit.costs.stages.size() == 4);
    for (std::size_t s = 0; s < 4; ++s) {
        CHECK(fit.costs.stages[s].f == Approx(truth.stages[s].f));
        CHECK(fit.costs.stages[s].b == Approx(truth.stages[s].b));
    }
    CHECK(fit.costs.actions.gap == Approx(50));
    CHECK(fit.costs.actions.postRecv == Approx(120));
    CHECK(fit.costs.actions.postSend == Approx(200));
    CHECK(fit.costs.actions.reduceGrad == Approx(400));
    CHECK(fit.costs.transfer.latency == Approx(300));
    CHECK(fit.transferSamples > 0);
    CHECK(fit.residual.makespanError == Approx(0).margin(1e-9));
    CHECK(fit.residual.bubbleError == Approx(0).margin(1e-9));
    CHECK(fit.residual.startMae == Approx(0).margin(1e-6));
    CHECK(fit.residual.matchedOps == 32); // 4 stages x 4 micro-batches x (F, B)
    // The file keeps what decided the run's makespan, measured and replayed: here the same path.
    const RuntimeFitRecord record = recordOf(fit, "run");
    REQUIRE(record.criticalPath);
    CHECK(record.criticalPath->measured == fit.residual.measured.path);
    CHECK(record.criticalPath->predicted == fit.residual.predicted.path);
    CHECK(record.criticalPath->measured.hops > 0);
    CHECK(record.criticalPath->predicted.total() == Approx(record.criticalPath->measured.total()));
    CHECK(fit.costs.cores == 0); // nothing made the ranks slow each other down

    // The same programs on ranks that share one processor: the trace's compute ranges are longer
    // wherever both ranks computed at once; the fit finds the processor count and takes each op's
    // work back out of the measured ranges.
    RuntimeCosts shared = truth;
    shared.cores = 1;
    const ProgramTiming sharedTiming = timePrograms(l, shared);
    CHECK(sharedTiming.makespan > timing.makespan * 1.1);
    const RuntimeFit sharedFit = fitRuntime(asTrace(l, sharedTiming, 3), "shared");
    CHECK(sharedFit.costs.cores == 1);
    for (std::size_t s = 0; s < 4; ++s) {
        CHECK(sharedFit.costs.stages[s].f == Approx(truth.stages[s].f));
        CHECK(sharedFit.costs.stages[s].b == Approx(truth.stages[s].b));
    }
    CHECK(sharedFit.residual.makespanError == Approx(0).margin(1e-9));
    CHECK(sharedFit.residual.startMae == Approx(0).margin(1e-6));
    // Where the user knows the processors, the fit takes them as given: the right count fits
    // exactly, "one each" (0) leaves the contention in the costs, and a fraction is refused.
    const auto sharedTrace = asTrace(l, sharedTiming, 3);
    CHECK(fitRuntime(sharedTrace, "shared", 1).costs.cores == 1);
    const RuntimeFit ownEach = fitRuntime(sharedTrace, "shared", 0);
    CHECK(ownEach.costs.cores == 0);
    CHECK(ownEach.costs.stages[0].f > truth.stages[0].f);
    CHECK(fitRuntime(sharedTrace, "shared", 8).costs.cores == 0); // more than the ranks: none shared
    try {
        fitRuntime(sharedTrace, "shared", 0.5);
        FAIL("took half a processor");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "fit.processors");
    }

    // Predicting the same run from the fit is the residual; a slower transfer is seen as one.
    RuntimeCosts slower = truth;
    slower.transfer.latency = 900;
    const std::vector<RankTrace> slowRun = asTrace(l, timePrograms(l, slower), 2);
    const FidelityReport wrong = predictRun(fit.costs, slowRun, "slow");
    CHECK(wrong.makespanError < -0.01);
    CHECK(wrong.criticalDelta.inputWait < 0);
    // The parts of the last rank's time and how far the makespan runs past it add up to the error.
    const RankTime& d = wrong.criticalDelta;
    CHECK(d.compute + d.inputWait + d.comm + d.bookkeeping + d.gaps + wrong.criticalPastRank ==
          Approx(wrong.predicted.makespan - wrong.measured.makespan).margin(1e-6));
    // A slower transfer is the schedule's timing, not the ops' speed: at the run's op speed the
    // error stays.
    CHECK(wrong.opSpeed == Approx(1).epsilon(1e-6));
    REQUIRE(wrong.atRunSpeed);
    CHECK(wrong.makespanErrorAtRunSpeed == Approx(wrong.makespanError).epsilon(1e-6));

    // The same machine running every op 20 % longer: the prediction is short by what the speed
    // makes, and at the run's own op speed nothing is left.
    const std::vector<RankTrace> slowOpsRun = asTrace(l, timePrograms(l, scaledCompute(truth, 1.2)), 2);
    const FidelityReport slowOps = predictRun(fit.costs, slowOpsRun, "slow ops");
    CHECK(slowOps.makespanError < -0.05);
    CHECK(slowOps.opSpeed == Approx(1.2).epsilon(1e-6));
    REQUIRE(slowOps.atRunSpeed);
    CHECK(slowOps.makespanErrorAtRunSpeed == Approx(0).margin(1e-9));
    CHECK(slowOps.bubbleErrorAtRunSpeed == Approx(0).margin(1e-9));
}

TEST_CASE("the critical path of a run made by the model is the model's, and adds up to the makespan",
          "[runtime_fit][critical_path]") {
    const Lowered l = interleavedPrograms();
    const RuntimeCosts truth = knownCosts();
    const ProgramTiming timing = timePrograms(l, truth);
    const RunSummary predicted = summarizePredicted(l, timing);
    const ActionPathParts& p = predicted.path;
    CHECK(p.total() == Approx(predicted.makespan));
    // Every transfer the path crosses is one the model timed: both posts, then 300 µs.
    REQUIRE(p.hops > 0);
    CHECK(p.transfers == Approx(300 * p.hops));
    CHECK(p.compute > 0);
    CHECK(p.comm > 0);
    CHECK(p.gaps > 0);
    CHECK(p.waits == 0);
    // The same run read as a trace: the ranges give the same path.
    const ActionPathParts m = summarizeMeasured(asTrace(l, timing, 3)).path;
    CHECK(m.compute == Approx(p.compute));
    CHECK(m.transfers == Approx(p.transfers));
    CHECK(m.hops == p.hops);
    CHECK(m.comm == Approx(p.comm));
    CHECK(m.bookkeeping == Approx(p.bookkeeping));
    CHECK(m.gaps == Approx(p.gaps));
    CHECK(m.waits == Approx(0).margin(1e-9));
}

TEST_CASE("a split run's W speed is its rank's, and a W moved to another rank takes that rank's speed",
          "[runtime_fit]") {
    // The programs torch's ZBVZeroBubble ran (pp = 2, m = 4: rank 0 holds stages 0 and 3, rank 1
    // stages 1 and 2), timed with costs whose W runs twice as long on rank 1 as on rank 0 for the
    // same work (I and W of a stage take the same FLOPs), as torch's W does on every rank but the
    // first in the recorded runs. Stage 0's I computes nothing (torch's first stage).
    const auto dir = std::filesystem::path(STAGECRAFT_REFERENCE_DIR) / "torch-traces";
    const Lowered l = programsOf(executedActionsCsv(
        readTorchRun({dir / "ZBVZeroBubble_pp2_m4_rank0.json", dir / "ZBVZeroBubble_pp2_m4_rank1.json"}), 0));
    REQUIRE(l.splitBackward);
    RuntimeCosts truth;
    truth.stages = {StageCompute{1000, -1, 0.5, 2000}, StageCompute{1100, -1, 900, 1800},
                    StageCompute{900, -1, 1000, 2000}, StageCompute{1300, -1, 1100, 1100}};
    truth.actions = ActionCosts{50, 120, 200, 0, 400, 10, 12};
    truth.transfer.latency = 300;
    const RuntimeFit fit = fitRuntime(asTrace(l, timePrograms(l, truth), 3), "zbv");
    REQUIRE(fit.costs.weightFactors.size() == 2);
    CHECK(fit.costs.weightFactors[0] == Approx(1.0)); // stage 3: 1100 / 1100
    CHECK(fit.costs.weightFactors[1] == Approx(2.0)); // stages 1, 2: 3800 / 1900
    CHECK(fit.costs.stageRanks == std::vector<int>{0, 1, 1, 0});
    CHECK(fit.residual.makespanError == Approx(0).margin(1e-9)); // on its own ranks nothing moves
    // Another placement: stage 1 on rank 0 runs its W at rank 0's speed, stage 3 on rank 1 at rank 1's.
    CHECK(weightCostOn(fit.costs, 1, 0) == Approx(900));
    CHECK(weightCostOn(fit.costs, 3, 1) == Approx(2200));
    CHECK(weightCostOn(fit.costs, 2, 1) == Approx(2000));
    CHECK(weightCostOn(fit.costs, 2, 5) == Approx(2000)); // a rank the fit did not see: as measured
    Instruction w;
    w.kind = InstrKind::Compute;
    w.op = OpKind::W;
    w.stage = 1;
    CHECK(computeCost(fit.costs, w, true, 0) == Approx(900));
    CHECK(computeCost(fit.costs, w, true) == Approx(1800)); // no rank: the stage's own W
    CHECK(std::any_of(fit.notes.begin(), fit.notes.end(), [](const std::string& n) {
        return n.rfind("W over I by rank: 1.00, 2.00", 0) == 0 &&
               n.find("a whole backward (not measured) is I + W with the W at the fastest "
                      "rank's speed") != std::string::npos;
    }));
    // A whole backward (a schedule that does not split it) runs its weight half at the fastest
    // rank's W speed on every rank: stage 1's B is I + W / 2 on rank 1, stage 3's I + W on rank 0,
    // stage 0's its whole W (its I computes nothing).
    CHECK(fit.costs.stages[1].b == Approx(900 + 900));
    CHECK(fit.costs.stages[2].b == Approx(1000 + 1000));
    CHECK(fit.costs.stages[3].b == Approx(1100 + 1100));
    CHECK(fit.costs.stages[0].b == Approx(0.5 + 2000));
    RuntimeCosts noFactors = truth;
    CHECK(wholeBackwardCosts(noFactors).stages[1].b == Approx(900 + 1800)); // no speeds known: I + W
    // Another cut of the model has no stage on a known rank: the W costs stay as mapped.
    CHECK(remapStages(fit.costs, 2).weightFactors.empty());
    // A run that does not split its backward shows no W speed.
    CHECK(flatCosts(2, 1, 2).weightFactors.empty());
}

TEST_CASE("stage costs map onto another stage count by their share of the model", "[runtime_fit]") {
    RuntimeCosts four;
    four.stages = {StageCompute{1, 2, -1, -1}, StageCompute{3, 4, -1, -1}, StageCompute{5, 6, -1, -1},
                   StageCompute{7, 8, -1, -1}};
    const RuntimeCosts two = remapStages(four, 2);
    REQUIRE(two.stages.size() == 2);
    CHECK(two.stages[0].f == Approx(4));
    CHECK(two.stages[1].b == Approx(14));
    CHECK(two.stages[0].i < 0); // unknown stays unknown
    const RuntimeCosts eight = remapStages(four, 8);
    REQUIRE(eight.stages.size() == 8);
    CHECK(eight.stages[5].f == Approx(2.5));
    const RuntimeCosts three = remapStages(four, 3);
    double total = 0;
    for (const StageCompute& s : three.stages) total += s.f;
    CHECK(total == Approx(16));
    CHECK(three.stages[0].f == Approx(1 + 3.0 / 3)); // stage 0 and a third of stage 1

    const RuntimeCosts split = splitBackwardCosts(four, 0.4);
    CHECK(split.stages[0].i == 0);
    CHECK(split.stages[0].w == Approx(2));
    CHECK(split.stages[2].i == Approx(2.4));
    CHECK(split.stages[2].w == Approx(3.6));
    CHECK(wholeBackwardCosts(split).stages[2].b == Approx(6));
}

TEST_CASE("a fit file reads back to the same fit and refuses bad fields by name", "[runtime_fit][fit_file]") {
    RuntimeFitRecord r;
    r.costs.stages = {StageCompute{1000, -1, 0.5, 2000}, StageCompute{1100, 2100, -1, -1}};
    r.costs.actions = ActionCosts{12.5, 100, 200, 15, 400, 10, 6};
    r.costs.transfer.latency = 80;
    r.costs.cores = 1.5;
    r.costs.spread.compute = {0.5, 1.0, 3.75};
    r.costs.spread.post = {0.1, 7};
    r.source = "a_rank0.json,a_rank1.json";
    r.iterations = 8;
    r.ranks = 2;
    r.microbatches = 8;
    r.notes = {"one note"};
    r.residualMakespanError = -0.015;
    r.residualBubbleError = 0.02;
    std::string text = runtimeFitToJson(r);
    CHECK(parseRuntimeFitJson(text, "fit.json") == r);
    // Weight factors, one not measured (null), and the rank of each stage.
    r.costs.weightFactors = {1.0, NAN};
    r.costs.stageRanks = {0, 1};
    text = runtimeFitToJson(r);
    CHECK(text.find("\"weight_factors\": [\n    1.0,\n    null\n  ]") != std::string::npos);
    const RuntimeFitRecord back = parseRuntimeFitJson(text, "fit.json");
    REQUIRE(back.costs.weightFactors.size() == 2);
    CHECK(back.costs.weightFactors[0] == 1.0);
    CHECK(std::isnan(back.costs.weightFactors[1]));
    CHECK(back.costs.stageRanks == r.costs.stageRanks);
    r.costs.weightFactors = {1.0, 1.7};
    text = runtimeFitToJson(r);
    CHECK(parseRuntimeFitJson(text, "fit.json") == r);

    auto refused = [&](const std::string& from, const std::string& to, const std::string& id,
                       const std::string& words) {
        std::string bad = text;
        const auto at = bad.find(from);
        REQUIRE(at != std::string::npos);
        bad.replace(at, from.size(), to);
        try {
            parseRuntimeFitJson(bad, "fit.json");
            FAIL("accepted: " << to);
        } catch (const Error& e) {
            CHECK(e.id() == id);
            CHECK(std::string(e.what()).find(words) != std::string::npos);
        }
    };
    refused("\"f\": 1000.0", "\"f\": -3", "fit.field", "stages_us[0].f");
    refused("\"f\": 1100.0", "\"f\": null", "fit.field", "stages_us[1].f");
    refused("\"gap\": 12.5", "\"gap\": \"fast\"", "fit.field", "actions_us.gap");
    refused("\"stagecraft_runtime_fit\": 1", "\"stagecraft_runtime_fit\": 7", "fit.version", "version 1");
    refused("\"model\": \"torch-gloo\"", "\"model\": \"nccl\"", "fit.field", "torch-gloo");
    refused("3.75", "0.25", "fit.field", "not sorted");
    refused("\"iterations\": 8,", "\"iterations\": 8", "fit.json", "");
    refused("\"shared_processors\": 1.5", "\"shared_processors\": -2", "fit.field", "shared_processors");
    refused("1.7", "-1", "fit.field", "weight_factors[1]");
    refused("\"stage_ranks\": [\n    0,\n    1\n  ]", "\"stage_ranks\": [0]", "fit.field", "one per stage");
    refused("\"stage_ranks\": [\n    0,\n    1\n  ]", "\"stage_ranks\": [0, \"x\"]", "fit.field",
            "stage_ranks[1]");
    // A file written before the processors were fitted: every rank had its own.
    std::string older = text;
    older.replace(older.find("\"shared_processors\": 1.5,"),
                  std::string("\"shared_processors\": 1.5,").size(), "");
    CHECK(parseRuntimeFitJson(older, "fit.json").costs.cores == 0);

    // What the replay got wrong on the rank that ends last: kept, read back, and said in words
    // where the makespan is off by more than 2 %.
    CHECK(describeRuntimeFit(r).find("largest part") == std::string::npos); // parts not known
    r.residualMakespanError = -0.054;
    r.residualParts = ResidualParts{1, 120, -2700, -1400, -10, 30, 900};
    text = runtimeFitToJson(r);
    CHECK(parseRuntimeFitJson(text, "fit.json") == r);
    CHECK(
        describeRuntimeFit(r).find("makespan 5.4 % short, bubble 2.0 points over; the largest part: rank 1's "
                                   "waits for its inputs, 2.7 ms under the run's)") != std::string::npos);
    r.residualMakespanError = 0.015; // within 2 %: no part named
    CHECK(describeRuntimeFit(r).find("largest part") == std::string::npos);
    refused("\"critical_rank\": 1", "\"critical_rank\": 2", "fit.field", "residual.critical_rank");
    refused("\"input_wait\": -2700.0", "\"input_wait\": \"x\"", "fit.field",
            "residual.critical_delta_us.input_wait");
    // Files written before the parts were kept read as not knowing them.
    std::string withoutParts = text;
    const auto from = withoutParts.find(",\n    \"critical_rank\"");
    REQUIRE(from != std::string::npos);
    withoutParts.erase(from, withoutParts.find("}", withoutParts.find("critical_delta_us")) + 1 - from);
    CHECK(parseRuntimeFitJson(withoutParts, "fit.json").residualParts.rank == -1);

    // The fitted run's critical path, measured and replayed: kept, read back, refused by name.
    CHECK(text.find("critical_path") == std::string::npos); // not known: not written
    r.criticalPath = FitCriticalPath{ActionPathParts{35680, 18940, 47630, 1783, 276, 1727, 22},
                                     ActionPathParts{38000, 3400, 53000, 0, 270, 6700, 29}};
    text = runtimeFitToJson(r);
    CHECK(text.find("\"critical_path\": {\n      \"measured\": {\n        \"compute_us\": 35680.0,") !=
          std::string::npos);
    CHECK(parseRuntimeFitJson(text, "fit.json") == r);
    refused("\"hops\": 29.0", "\"hops\": -1", "fit.field",
            "residual.critical_path.predicted.hops = -1: must be a count of transfers");
    refused("\"transfers_us\": 18940.0", "\"transfers_us\": null", "fit.field",
            "residual.critical_path.measured.transfers_us");
    std::string withoutPredicted = text;
    withoutPredicted.replace(withoutPredicted.find("\"predicted\": {"), std::string("\"predicted\"").size(),
                             "\"replayed\"");
    try {
        parseRuntimeFitJson(withoutPredicted, "fit.json");
        FAIL("a critical path without its replay was accepted");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("residual.critical_path.predicted is missing") != std::string::npos);
    }
    CHECK(criticalPathText(r.criticalPath->measured, r.criticalPath->predicted) ==
          "the critical path, measured / predicted ms (medians): compute 35.68 / 38, transfers 18.94 / 3.4 "
          "(22.0 / 29.0 hops), comm 47.63 / 53, waits not followed 1.783 / 0, bookkeeping 0.276 / 0.27, "
          "gaps 1.727 / 6.7");
}

TEST_CASE("the comparison figure puts each device's measured row under its predicted row",
          "[runtime_fit][chart]") {
    RunTimelines run;
    run.predicted.shape.devices = 2;
    run.predicted.shape.stagesPerPipe = 2;
    run.predicted.shape.microbatches = 1;
    run.measured.shape = run.predicted.shape;
    TimelineEvent e;
    e.device = 1;
    e.op.stage = 1;
    e.start = 0;
    e.end = 5;
    run.measured.events.push_back(e);
    e.end = 6;
    run.predicted.events.push_back(e);
    const Scene scene = buildRunComparisonScene(run, "run", ChartSettings{}, 500);
    // Rows "D0 predicted", "measured", "D1 predicted", "measured" from the top.
    std::vector<const SceneText*> labels;
    for (const SceneText& t : scene.texts)
        if (t.text == "D0 predicted" || t.text == "D1 predicted" || t.text == "measured")
            labels.push_back(&t);
    REQUIRE(labels.size() == 4);
    std::sort(labels.begin(), labels.end(),
              [](const SceneText* a, const SceneText* b) { return a->y < b->y; });
    CHECK(labels[0]->text == "D0 predicted");
    CHECK(labels[1]->text == "measured");
    CHECK(labels[2]->text == "D1 predicted");
    CHECK(labels[3]->text == "measured");
    // Device 1's two ops: the predicted bar (6 long) in its predicted row, the measured one (5
    // long, same start: never shifted) right under it, each saying both sides.
    std::vector<const SceneRect*> bars;
    for (const SceneRect& r : scene.rects)
        if (r.role == RectRole::Op && r.event >= 0) bars.push_back(&r);
    REQUIRE(bars.size() == 2);
    CHECK(bars[0]->y < bars[1]->y);
    CHECK(bars[0]->x == bars[1]->x);
    CHECK(bars[1]->w < bars[0]->w);
    CHECK(bars[1]->tooltip.find("1F0 on D1, measured\nmeasured: starts 0") == 0);
    CHECK(bars[1]->tooltip.find("\ndifference: starts +0") != std::string::npos);
}

TEST_CASE("repeated recordings of one run are joined, their iterations counted on", "[runtime_fit]") {
    const Lowered l = interleavedPrograms();
    const RuntimeCosts truth = knownCosts();
    const ProgramTiming timing = timePrograms(l, truth);

    // Two recordings: 2 iterations, then (new processes, a minute later) 3 more. Given in mixed
    // order, as files of a folder may come.
    std::vector<RankTrace> first = asTrace(l, timing, 2), second = asTrace(l, timing, 3);
    for (RankTrace& t : second) {
        t.source += "-again";
        for (ActionRange& r : t.ranges) {
            r.start += 60e6;
            r.end += 60e6;
        }
    }
    std::vector<RankTrace> mixed = {second[1], first[0], second[0], first[1]};
    const std::vector<RankTrace> joined = joinRepeatedRecordings(mixed);
    REQUIRE(joined.size() == 2);
    CHECK(joined[0].rank == 0);
    CHECK(joined[0].source == "rank0 + rank0-again");
    CHECK(completeIterations(joined) == 5);
    const RuntimeFit fit = fitRuntime(joined, "joined");
    CHECK(fit.iterations == 5);
    CHECK(fit.costs.stages[3].b == Approx(2500));
    CHECK(fit.residual.makespanError == Approx(0).margin(1e-9));

    CHECK(joined[0].recordingStarts ==
          std::vector<double>{first[0].ranges.front().start, second[0].ranges.front().start});
    CHECK(first[0].recordingStarts.empty());

    // Repeats of a run run at speeds of their own: the spread is what varies within each
    // recording. The second recording here runs every op 1.4 times as long, each exactly so.
    std::vector<RankTrace> slower = asTrace(l, timePrograms(l, scaledCompute(truth, 1.4)), 3);
    for (RankTrace& t : slower)
        for (ActionRange& r : t.ranges) {
            r.start += 60e6;
            r.end += 60e6;
        }
    const RuntimeFit repeats =
        fitRuntime(joinRepeatedRecordings({first[0], first[1], slower[0], slower[1]}), "repeats", 0);
    CHECK(repeats.iterations == 5);
    CHECK(repeats.costs.stages[3].b == Approx(1.4 * 2500)); // typical of all: 3 of 5 iterations
    REQUIRE_FALSE(repeats.costs.spread.compute.empty());
    CHECK(repeats.costs.spread.compute.front() == Approx(1));
    CHECK(repeats.costs.spread.compute.back() == Approx(1));
    CHECK(repeats.sharedVariation == 0);
    // Pooled, the two speeds would read as variation (most of it shared by the ranks, which the
    // spread then scales down, but not all).
    const RuntimeFit pooled = fitRuntime(
        [&] {
            std::vector<RankTrace> one = joinRepeatedRecordings({first[0], first[1], slower[0], slower[1]});
            for (RankTrace& t : one) t.recordingStarts.clear();
            return one;
        }(),
        "pooled", 0);
    CHECK(pooled.sharedVariation > 0.5);
    CHECK(pooled.costs.spread.compute.front() < 0.95);

    // The same rank twice over the same moments is a slip, not a repeat.
    std::vector<RankTrace> twice = {first[0], first[1], first[0]};
    const std::string message = [&] {
        try {
            joinRepeatedRecordings(twice);
        } catch (const ParseError& e) {
            CHECK(e.id() == "trace.shape");
            return std::string(e.what());
        }
        return std::string();
    }();
    CHECK(message.find("both of rank 0; give one file per rank") != std::string::npos);

    // `RUN` names every rank of every repeat when the run was recorded in repeats.
    const auto tmp = std::filesystem::temp_directory_path() /
                     ("stagecraft-repeat-names-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(tmp);
    for (const char* name :
         {"R_rep0_rank0.json", "R_rep0_rank1.json", "R_rep1_rank0.json", "R_rep1_rank1.json"})
        std::ofstream(tmp / name) << "{}";
    const auto files = runFiles((tmp / "R").string());
    REQUIRE(files.size() == 4);
    CHECK(files[2].filename() == "R_rep1_rank0.json");

    // A name that is neither a file nor a run's prefix is said to be missing, not "not a torch
    // trace" (which the format sniffer would say of a file it cannot read).
    const std::string missing = (tmp / "Q").string();
    CHECK(test::errorSummary([&] { runFiles(missing); }) ==
          "io.read | cannot read '" + missing + "': no such file, and no run with that prefix (" + missing +
              "_rank0.json or " + missing + "_rep0_rank0.json)");
    std::filesystem::remove_all(tmp);
}

TEST_CASE("a prediction is the median of 257 draws, fewer for long programs at a fixed cost",
          "[runtime_fit]") {
    // On the 4-rank torch runs one draw's makespan is 11-16 % from the next: the median of 33 moved
    // 2-3 % with the seeds alone (docs/fidelity.md). A long program's draws spread less, as
    // 1 / sqrt(instructions), so a fixed number of instruction timings (a million) keeps the
    // median's standard error the same at every size.
    auto programsOf = [](std::size_t perRank) {
        Lowered l;
        l.ranks = 2;
        l.programs.resize(2);
        for (Program& p : l.programs) p.instructions.resize(perRank);
        return l;
    };
    CHECK(drawsFor(programsOf(248)) == 257);     // a torch run's iteration (496 instructions)
    CHECK(drawsFor(programsOf(1'940)) == 257);   // 3,880: still all of them
    CHECK(drawsFor(programsOf(5'000)) == 101);   // 1M / 10,000 = 100, made odd
    CHECK(drawsFor(programsOf(15'000)) == 33);   // 30,000
    CHECK(drawsFor(programsOf(2'500'000)) == 3); // a median still
    CHECK(drawsFor(programsOf(0)) == 257);
    for (const std::size_t n :
         {std::size_t(1), std::size_t(20'000), std::size_t(70'000), std::size_t(400'000)}) {
        const int draws = drawsFor(programsOf(n));
        CHECK(draws % 2 == 1);
        CHECK(draws >= 3);
        if (draws > 3)
            CHECK(double(draws - 1) * double(2 * n) <= 1e6); // within the budget but for the odd one
    }
}

TEST_CASE("a torch run on GPUs is refused by the runtime fit with what to use instead", "[runtime_fit]") {
    // torch-gloo times ops that hold the rank's thread. On a GPU, torch's ranges only launch
    // kernels: fitted as they are, the "compute" would be launch times. Two ways a GPU run shows
    // itself: kernels joined to the ranges that launched them, or Kineto's device copies of the
    // ranges (gpu_user_annotation).
    const auto path = std::filesystem::temp_directory_path() /
                      ("stagecraft-gpu-run-" + std::to_string(std::random_device{}()) + ".json");
    auto refusal = [&](const std::string& events) {
        writeFileAtomically(path, R"({"distributedInfo":{"rank":0},"traceEvents":[)" + events + "]}");
        try {
            readTorchRun({path});
        } catch (const ValidationError& e) {
            std::filesystem::remove(path);
            return e.id() + ": " + e.message();
        }
        std::filesystem::remove(path);
        return std::string("read");
    };
    const std::string ranges =
        R"({"ph":"X","cat":"user_annotation","name":"PP:0F0","pid":7,"tid":1,"ts":10,"dur":20},)"
        R"({"ph":"X","cat":"user_annotation","name":"PP:0SEND_F0","pid":7,"tid":1,"ts":31,"dur":2},)"
        R"({"ph":"X","cat":"user_annotation","name":"PP:0B0","pid":7,"tid":1,"ts":40,"dur":30})";
    CHECK(refusal(ranges) == "read"); // the same ranges on a CPU run are the fit's
    const std::string launched =
        ranges +
        R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":7,"tid":1,"ts":12,"dur":3,"args":{"correlation":5}},)"
        R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":14,"dur":400,"args":{"correlation":5}})";
    const std::string why = refusal(launched);
    CHECK(why.rfind("calibrate.trace: ", 0) == 0);
    CHECK(why.find("ran on a GPU") != std::string::npos);
    CHECK(why.find("`calibrate` fits the list scheduler's costs to its kernel times") != std::string::npos);
    const std::string copies =
        ranges +
        R"(,{"ph":"X","cat":"gpu_user_annotation","name":"PP:0F0","pid":0,"tid":7,"ts":14,"dur":400})";
    CHECK(refusal(copies).find("ran on a GPU") != std::string::npos);
}
