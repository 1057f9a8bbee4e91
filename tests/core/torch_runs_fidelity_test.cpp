// Held-out fidelity on real torch.distributed.pipelining runs (tests/data/torch-runs, recorded by
// torch itself): the runtime model is fitted on one run and predicts the runs of the other
// schedule classes of the same model, never fitted on them. The acceptance of issue 22 is 5 % /
// 3 points on the fitted run and 10 % / 5 points on the others; docs/fidelity.md has the table
// of where the model stands against it. The bounds here are a regression guard at today's
// residual (the worst case of the matrix with some room for the runs' own noise): they fail when
// the fit or the timing gets worse, not when the acceptance is missed. Today's residual leans on
// the spread drawing its extremes too often ("The spread's extremes are drawn too often" in
// docs/fidelity.md): kept faithfully, the H = 512 DualPipeV fit's bubble and the 4-rank LoopedBFS
// fit's busy time cross these bounds; they are to be re-set on a model that needs no such help.
#include "error.h"
#include "eval/runtime_fit.h"
#include "generators/registry.h"
#include "project/runtime_costs.h"
#include "torch_runs.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace stagecraft;

namespace {

std::vector<std::filesystem::path> runFiles(const std::string& set, const std::string& cls) {
    return test::torchRunFiles(set, cls);
}

struct Bounds {
    double makespan, bubble;
};
constexpr Bounds kSameRun{0.15, 0.10};
constexpr double kSameRunBusy = 0.10; // worst today: 7.5 % (a 4-rank run's rank 0)
constexpr Bounds kOtherRun{0.30, 0.15};

} // namespace

TEST_CASE("a fit on one torch run predicts that run and the other classes' runs of the same model",
          "[torch_runs][fidelity]") {
    const std::vector<std::string> classes{"Interleaved1F1B", "LoopedBFS", "InterleavedZeroBubble",
                                           "ZBVZeroBubble", "DualPipeV"};
    int fits = 0, checks = 0, sameWithin = 0, otherWithin = 0, measuredKinds = 0, measuredKindsWithin = 0,
        withinNoise = 0, measuredKindsWithinAtSpeed = 0;
    for (const std::string set : {"pp2_h1024", "pp2_h512", "pp4_h512"}) {
        for (const std::string& source : classes) {
            if (!std::filesystem::exists(runFiles(set, source).front())) continue;
            INFO(set << ": fitted on " << source);
            const RuntimeFit fit = fitRuntime(readTorchRun(runFiles(set, source)), source);
            ++fits;
            const FidelityReport& self = fit.residual;
            CHECK(std::abs(self.makespanError) < kSameRun.makespan);
            CHECK(std::abs(self.bubbleError) < kSameRun.bubble);
            // The acceptance on the fitted run also holds each rank's busy (compute) time to 5 %.
            double busyError = 0;
            for (std::size_t d = 0; d < self.measured.ranks.size(); ++d)
                busyError =
                    std::max(busyError,
                             std::abs(self.predicted.ranks[d].compute / self.measured.ranks[d].compute - 1));
            CHECK(self.busyError == Approx(busyError));
            // The fit's processor count is chosen on busy time too: a count that met the makespan by
            // stretching every rank's compute (12 % on the 4-rank LoopedBFS run) is not taken.
            CHECK(self.busyError < kSameRunBusy);
            sameWithin += std::abs(self.makespanError) <= 0.05 && std::abs(self.bubbleError) <= 0.03 &&
                          busyError <= 0.05;
            // GPipe (torch's fixed loop, one stage of twice the layers per rank) is predicted too: it
            // records no transfers, so it is checked but never fitted.
            std::vector<std::string> targets = classes;
            targets.push_back("GPipe");
            for (const std::string& target : targets) {
                if (target == source || !std::filesystem::exists(runFiles(set, target).front())) continue;
                if (test::torchRunSplitsBackward(target) && !test::torchRunSplitsBackward(source))
                    continue; // I and W were not measured
                INFO("predicting " << target);
                const FidelityReport r = predictRun(fit.costs, readTorchRun(runFiles(set, target)), target);
                ++checks;
                CHECK(std::abs(r.makespanError) < kOtherRun.makespan);
                CHECK(std::abs(r.bubbleError) < kOtherRun.bubble);
                CHECK(r.matchedOps == r.measured.ops.size());
                const bool within = std::abs(r.makespanError) <= 0.10 && std::abs(r.bubbleError) <= 0.05;
                // The measured median is of 32 iterations that vary: its own 95 % interval.
                CHECK(r.measured.makespanLow <= r.measured.makespan);
                CHECK(r.measured.makespan <= r.measured.makespanHigh);
                CHECK(r.measuredNoise > 0);
                withinNoise += std::abs(r.makespanError) <= r.measuredNoise;
                otherWithin += within;
                // The acceptance names the pairs whose op kinds the source measured: a split run
                // measures no whole backward (B), which DualPipeV's overlapped slots and the
                // unsplit classes run; an unsplit run no I and W.
                if (test::torchRunAcceptancePair(source, target)) {
                    ++measuredKinds;
                    measuredKindsWithin += within;
                    // The same pair at the checked run's own op speed: what the schedule's timing
                    // leaves once the runs' different speed is taken out (a diagnosis).
                    REQUIRE(r.atRunSpeed);
                    measuredKindsWithinAtSpeed += std::abs(r.makespanErrorAtRunSpeed) <= 0.10 &&
                                                  std::abs(r.bubbleErrorAtRunSpeed) <= 0.05;
                }
                // Runs of one model differ in op speed by 10-20 %, not by 2x.
                CHECK(r.opSpeed > 0.7);
                CHECK(r.opSpeed < 1.4);
            }
        }
    }
    CHECK(fits >= 12);
    CHECK(checks >= 44);
    // How many meet the acceptance today (docs/fidelity.md keeps the table).
    WARN("within 5 % / 3 points / 5 % busy per rank on the fitted run: "
         << sameWithin << " of " << fits << "; within 10 % / 5 points on another run: " << otherWithin
         << " of " << checks
         << ", of them the pairs whose op kinds the source measured: " << measuredKindsWithin << " of "
         << measuredKinds << " (at the checked run's own op speed: " << measuredKindsWithinAtSpeed << ")"
         << "; makespan within the measured median's own 95 % interval: " << withinNoise << " of " << checks);
}

TEST_CASE("a GPipe run is predicted from its labels but not fitted", "[torch_runs][fidelity]") {
    // ScheduleGPipe records "Forward i" / "Backward i" and no transfers: its programs are torch's
    // GPipe loop on the order the labels show.
    try {
        fitRuntime(readTorchRun(runFiles("pp2_h1024", "GPipe")), "GPipe");
        FAIL("fitted a run without transfer actions");
    } catch (const ValidationError& e) {
        CHECK(std::string(e.what()).find("records no SEND/RECV actions") != std::string::npos);
    }
    const RuntimeFit fit = fitRuntime(readTorchRun(runFiles("pp2_h1024", "ZBVZeroBubble")), "ZBVZeroBubble");
    std::vector<std::string> notes;
    const FidelityReport r =
        predictRun(fit.costs, readTorchRun(runFiles("pp2_h1024", "GPipe")), "GPipe", &notes);
    CHECK(r.matchedOps == 2 * 8 * 2);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("from 4 to 2 stages") != std::string::npos);
}

TEST_CASE("a DualPipeV run is fitted from its overlapped halves, and predicted from other fits",
          "[torch_runs][fidelity]") {
    // torch's profiler records the CPU ops inside each OVERLAP_F_B range, so the reader times its
    // forward and backward halves apart where the backward's first op began: the run measures F,
    // whole backwards, and the I and W its last backwards split.
    const std::vector<RankTrace> run = readTorchRun(runFiles("pp2_h1024", "DualPipeV"));
    for (const RankTrace& t : run) CHECK(t.overlapsByRule == 0);
    const RuntimeFit fit = fitRuntime(run, "DualPipeV");
    // The whole backwards as measured, not I + W by the rule for split runs without them.
    RuntimeCosts ruled = fit.costs;
    for (StageCompute& s : ruled.stages) s.b = -1;
    ruled = wholeBackwardCosts(ruled);
    int apart = 0;
    for (std::size_t i = 0; i < fit.costs.stages.size(); ++i) {
        const StageCompute& s = fit.costs.stages[i];
        CHECK(s.f > 0);
        CHECK(s.i > 0);
        CHECK(s.w > 0);
        REQUIRE(s.b > 0);
        apart += std::abs(s.b - ruled.stages[i].b) > 0.02 * s.b;
    }
    CHECK(apart >= 2);
    CHECK(std::abs(fit.residual.makespanError) < 0.05);
    // The replay times each whole backward at its measured cost (its B and W share it), so every
    // rank computes as long as in the run: timed as a split I + W, rank 1 of the H = 512 run
    // computed 5.9 % longer than it did.
    CHECK(fit.residual.busyError < 0.05);
    // The fit's record keeps what its replay got wrong on the last rank, and the parts add up.
    const ResidualParts parts = recordOf(fit, "DualPipeV").residualParts;
    CHECK(parts.rank == fit.residual.criticalRank);
    CHECK(parts.compute + parts.inputWait + parts.comm + parts.bookkeeping + parts.gaps + parts.pastRank ==
          Approx(fit.residual.predicted.makespan - fit.residual.measured.makespan).margin(1e-6));
    CHECK(fitRuntime(readTorchRun(runFiles("pp2_h512", "DualPipeV")), "DualPipeV").residual.busyError < 0.05);
    CHECK(fit.residual.matchedOps == fit.residual.measured.ops.size());
    bool said = false;
    for (const std::string& n : fit.notes)
        said |= n.find("whole backwards as the run measured them") != std::string::npos;
    CHECK(said);

    // Halves divided by the stand-alone rule (a trace without CPU ops) are not fitted.
    std::vector<RankTrace> byRule = run;
    byRule[1].overlapsByRule = 3;
    try {
        fitRuntime(byRule, "DualPipeV");
        FAIL("fitted halves divided by a rule");
    } catch (const ValidationError& e) {
        CHECK(std::string(e.what()).find("3 of them were divided into their halves by a rule") !=
              std::string::npos);
    }

    // The timeline drawn for a prediction is a typical iteration: near the median, and no op drawn
    // from the spread's far tail (this fit's ZB-V once drew a forward at 4 times its peers').
    const ScheduleTiming timed =
        timeScheduleLikeTorch(fit.costs, generateSchedule("zb-v", {2, 8, 2}), "zb-v", kFittedInputShare);
    std::map<std::tuple<int, int, int>, std::vector<double>> peers; // (device, stage, kind)
    for (const TimelineEvent& e : timed.timeline.events)
        if (e.lane == Lane::Compute && !e.isTransfer())
            peers[{e.device, e.op.stage, int(e.op.kind)}].push_back(e.duration());
    double worst = 0;
    for (auto& [key, durations] : peers) {
        std::sort(durations.begin(), durations.end());
        const double typical = durations[durations.size() / 2];
        worst = std::max(worst, durations.back() / typical);
    }
    CHECK(worst < 2.5);

    // From a split run of another class, its prediction.
    const RuntimeFit zbv = fitRuntime(readTorchRun(runFiles("pp2_h1024", "ZBVZeroBubble")), "ZBVZeroBubble");
    const FidelityReport r = predictRun(zbv.costs, run, "DualPipeV");
    CHECK(r.matchedOps > 0);
    CHECK(std::abs(r.makespanError) < 0.10);
}

TEST_CASE("the fit splits the receive wait out of torch's compute ranges", "[torch_runs][fidelity]") {
    // Identical stages (two Linear + ReLU each) must fit to similar forward costs: with the wait for
    // the input counted as work, stages behind a transfer looked up to 3x slower than stage 0.
    const RuntimeFit fit =
        fitRuntime(readTorchRun(runFiles("pp2_h1024", "Interleaved1F1B")), "Interleaved1F1B");
    REQUIRE(fit.costs.stages.size() == 4);
    double lo = INFINITY, hi = 0;
    for (const StageCompute& s : fit.costs.stages) {
        lo = std::min(lo, s.f);
        hi = std::max(hi, s.f);
    }
    CHECK(hi / lo < 1.5);
    CHECK(fit.transferSamples > 0);
    // Every action of the iteration is in the programs read back: 2 ranks, 2 stages each, 8
    // micro-batches; F and B of each stage and micro-batch once.
    CHECK(fit.residual.matchedOps == 4 * 8 * 2);
}

TEST_CASE("registered schedules are predicted as torch runs them, refused one by one where they cannot run",
          "[torch_runs][fidelity]") {
    const RuntimeFit fit = fitRuntime(readTorchRun(runFiles("pp2_h1024", "ZBVZeroBubble")), "ZBVZeroBubble");
    const auto predictions = predictTorchSchedules(
        fit.costs, {"gpipe", "1f1b", "interleaved", "zb-h1", "zb-v", "chimera", "no-such-schedule"},
        {2, 8, 2});
    REQUIRE(predictions.size() == 7);
    for (std::size_t i = 0; i < 6; ++i) {
        INFO(predictions[i].schedule << ": " << predictions[i].refusal);
        CHECK(predictions[i].refusal.empty());
        CHECK(predictions[i].summary.makespan > 0);
    }
    CHECK(predictions[0].runtime == "gpipe-loop");
    CHECK(predictions[1].runtime == "1f1b-loop");
    CHECK(predictions[2].runtime == "runtime");
    // torch runs one pipe: two are timed with Stagecraft's own lowering at the fitted costs, and
    // the prediction says so.
    CHECK(predictions[5].runtime == "stagecraft");
    CHECK(std::any_of(predictions[5].notes.begin(), predictions[5].notes.end(), [](const std::string& n) {
        return n.find("torch runs one pipe") != std::string::npos;
    }));
    CHECK(predictions[6].refusal.find("unknown schedule") != std::string::npos);
    // The zero-bubble schedules' bubble is below 1F1B's on the same costs.
    CHECK(predictions[3].summary.bubble < predictions[1].summary.bubble);
}
