// Sequence slices whose costs depend on their position: causal attention gives a slice of s tokens
// ending at token P the work of s·P − s²/2 query-key pairs. Checked against thunlp's Seq1F1B code
// (its computation-wise partition and the relative costs of an even split, schedules-next §2.3),
// the reference's "uneven slices hurt" makespans, and the memory of a balanced split.
#include "error.h"
#include "eval/project_simulation.h"
#include "generators/registry.h"
#include "passes/lower.h"
#include "project/project.h"
#include "project/project_json.h"
#include "sim/calibration.h"
#include "sim/cost_model.h"
#include "sim/slice_work.h"

#include <catch2/catch.hpp>
#include <numeric>
#include <vector>

using namespace stagecraft;

namespace {

/// thunlp's example configuration (24 layers, h 4096, ffn 16384, 32 heads of 128, V 32000): per
/// token, projections 8h² and MLP 4h·ffn per layer plus 4hV for the embedding and head; per causal
/// query-key pair (4d + 3)·H per layer. The share of attention in the whole sequence's work.
double thunlpAttentionShare(double seqLen) {
    const double h = 4096, ffn = 16384, heads = 32, d = 128, vocab = 32000, layers = 24;
    const double linear = layers * (8 * h * h + 4 * h * ffn) + 4 * h * vocab;
    const double attention = layers * (4 * d + 3) * heads * seqLen * seqLen / 2;
    return attention / (linear * seqLen + attention);
}

Project slicedProject(int p, int m, int k) {
    Project project;
    project.costs.mode = CostMode::Unit;
    project.parallel.pp = p;
    project.parallel.microbatches = m;
    project.parallel.slices = k;
    project.model.layers = 4 * p;
    return project;
}

/// The default (analytic) project with p devices, m micro-batches of k slices of seqLen tokens.
Project analyticSlices(int p, int m, int k, int seqLen) {
    Project project;
    project.parallel.pp = p;
    project.parallel.microbatches = m;
    project.parallel.slices = k;
    project.model.seqLen = seqLen;
    return project;
}

double makespan(const Project& project) {
    const Prediction prediction = predict(project, generateSchedule("seq1f1b", project.parallel));
    return prediction.timeline.makespan();
}

} // namespace

TEST_CASE("Slices of equal work reproduce thunlp's computation-wise partition", "[slices]") {
    // thunlp rounds each slice down to a multiple of the tensor-parallel degree (2 here).
    CHECK(balancedSliceLengths(16384, 4, thunlpAttentionShare(16384), 2) ==
          std::vector<int>{4930, 4238, 3776, 3440});
    CHECK(balancedSliceLengths(32768, 4, thunlpAttentionShare(32768), 2) ==
          std::vector<int>{11040, 8418, 7080, 6230});
    // Without attention every token weighs the same: an even split.
    CHECK(balancedSliceLengths(4096, 4, 0.0) == std::vector<int>{1024, 1024, 1024, 1024});
    // More slices than tokens cannot be cut.
    CHECK(balancedSliceLengths(3, 4, 0.5).empty());
    CHECK(uniformSliceLengths(3, 4).empty());
    CHECK(uniformSliceLengths(10, 4) == std::vector<int>{3, 3, 2, 2});
}

TEST_CASE("An even split's slices cost what thunlp's FLOP formula gives", "[slices]") {
    for (const auto& [tokens, expected] : {std::pair{16384, std::vector<double>{1, 1.147, 1.295, 1.442}},
                                           std::pair{32768, std::vector<double>{1, 1.274, 1.549, 1.823}}}) {
        INFO("L = " << tokens);
        const std::vector<double> work =
            relativeSliceWork(uniformSliceLengths(tokens, 4), thunlpAttentionShare(tokens));
        REQUIRE(work.size() == 4);
        CHECK(std::accumulate(work.begin(), work.end(), 0.0) == Approx(4)); // the mean slice is 1
        for (std::size_t q = 0; q < 4; ++q) CHECK(work[q] / work[0] == Approx(expected[q]).margin(5e-4));
        // The balanced split's slices all do the same work.
        for (const double w : relativeSliceWork(balancedSliceLengths(tokens, 4, thunlpAttentionShare(tokens)),
                                                thunlpAttentionShare(tokens)))
            CHECK(w == Approx(1).epsilon(1e-3));
        // Dense kernels (each slice its rectangle of keys so far): their balanced cut's slices do
        // the same dense work, and the earlier slices hold more tokens still.
        const std::vector<int> dense = balancedSliceLengths(tokens, 4, thunlpAttentionShare(tokens), 1, true);
        REQUIRE(dense.size() == 4);
        CHECK(std::accumulate(dense.begin(), dense.end(), 0) == tokens);
        CHECK(dense.front() > dense.back());
        const std::vector<double> denseWork = relativeSliceWork(dense, thunlpAttentionShare(tokens), true);
        for (const double w : denseWork) CHECK(w == Approx(denseWork.front()).epsilon(1e-3));
    }
}

TEST_CASE("Uneven slices hurt: the reference's makespans at p=4, m=8", "[golden][slices]") {
    // Unit mode: F = 1 and B = 2 per micro-batch and stage, so the reference's figures (which take
    // a micro-batch's F as k units) are k times these.
    Project four = slicedProject(4, 8, 4);
    CHECK(4 * makespan(four) == Approx(105)); // equal slices: m (F + B) + (p - 1)(F + B) / k
    four.costs.sliceCosts = {1, 1.274, 1.549, 1.823};
    CHECK(4 * makespan(four) == Approx(132.1).margin(0.05));
    Project two = slicedProject(4, 8, 2);
    CHECK(2 * makespan(two) == Approx(57));
    two.costs.sliceCosts = {1, 1.274};
    CHECK(2 * makespan(two) == Approx(63.1).margin(0.05));
    // The costs are relative: a scale of them predicts the same.
    two.costs.sliceCosts = {10, 12.74};
    CHECK(2 * makespan(two) == Approx(63.1).margin(0.05));
}

TEST_CASE("Analytic costs give later slices of an even split more attention work", "[slices]") {
    Project project = analyticSlices(4, 8, 4, 32768);
    const Schedule s = generateSchedule("seq1f1b", project.parallel);
    const CostSetup setup = buildCostSetup(project, s);
    const auto cost = [&](OpKind kind, int stage, int slice) {
        return setup.costs.of(Op{kind, 0, 0, stage, slice}, s.stagesPerPipe);
    };
    // The whole micro-batch at once (1F1B: the same stages), with dense and with causal kernels.
    const auto unsliced = [&](Attention kernels, OpKind kind) {
        Project whole = project;
        whole.parallel.slices = 1;
        whole.model.attention = kernels;
        return buildCostSetup(whole, generateSchedule("1f1b", whole.parallel)).costs.duration[int(kind)][1];
    };
    Project causal = project;
    causal.model.attention = Attention::Causal;
    const CostSetup causalSetup = buildCostSetup(causal, s);
    for (const OpKind kind : {OpKind::F, OpKind::B}) {
        INFO("kind " << int(kind));
        for (int q = 1; q < 4; ++q) CHECK(cost(kind, 1, q) > cost(kind, 1, q - 1));
        // Causal kernels: the slices of one micro-batch cost what the whole micro-batch costs.
        // Dense kernels: less, each slice computing its queries against the keys so far rather
        // than the whole square (5/8 of the attention at k = 4).
        double dense = 0, causalSum = 0;
        for (int q = 0; q < 4; ++q) {
            dense += cost(kind, 1, q);
            causalSum += causalSetup.costs.of(Op{kind, 0, 0, 1, q}, s.stagesPerPipe);
        }
        CHECK(causalSum == Approx(unsliced(Attention::Causal, kind)));
        CHECK(dense < unsliced(Attention::Dense, kind));
        // The attention dense kernels do over the slices is 5/8 of the square, twice the causal half
        // less the 3/8 the slices skip: dense - causal = (5/8 - 1/2) / (1 - 1/2) of what the whole
        // micro-batch's dense kernels do beyond its causal ones.
        CHECK(dense - causalSum ==
              Approx(0.25 * (unsliced(Attention::Dense, kind) - unsliced(Attention::Causal, kind))));
    }
    // The backward does twice the forward's attention matmuls, and its weight gradient (folded in
    // here, none of it attention) twice the forward's other work: the same share, the same spread.
    CHECK(cost(OpKind::B, 1, 3) / cost(OpKind::B, 1, 0) ==
          Approx(cost(OpKind::F, 1, 3) / cost(OpKind::F, 1, 0)));
    // The first stage's forward with the embedding only; the last with the LM head dilutes it.
    CHECK(cost(OpKind::F, 3, 3) / cost(OpKind::F, 3, 0) < cost(OpKind::F, 1, 3) / cost(OpKind::F, 1, 0));
    // A balanced split evens the costs out and weighs the earlier, longer slices more in memory
    // (thunlp's cut, for the causal kernels its code runs). With dense kernels it balances their
    // rectangles: summed over the stages each slice's forward costs the same too.
    project.parallel.sliceSplit = SliceSplit::Balanced;
    // A slice's forward summed over the stages.
    const auto forwardOf = [&](const CostSetup& costs, int slice) {
        double sum = 0;
        for (int stage = 0; stage < 4; ++stage)
            sum += costs.costs.of(Op{OpKind::F, 0, 0, stage, slice}, s.stagesPerPipe);
        return sum;
    };
    const CostSetup dense = buildCostSetup(project, s);
    for (int q = 1; q < 4; ++q) CHECK(forwardOf(dense, q) == Approx(forwardOf(dense, 0)).epsilon(1e-3));
    project.model.attention = Attention::Causal;
    const CostSetup balanced = buildCostSetup(project, s);
    // The cut balances the whole model's forward (thunlp counts the embedding and the head in
    // every slice): summed over the stages each slice costs the same; a stage without the head,
    // where attention weighs more, still sees its later slices a little dearer.
    const auto forward = [&](int slice) { return forwardOf(balanced, slice); };
    for (int q = 1; q < 4; ++q) CHECK(forward(q) == Approx(forward(0)).epsilon(1e-3)); // whole tokens
    const double middle0 = balanced.costs.of(Op{OpKind::F, 0, 0, 1, 0}, s.stagesPerPipe);
    const double middle3 = balanced.costs.of(Op{OpKind::F, 0, 0, 1, 3}, s.stagesPerPipe);
    CHECK(middle3 > middle0);
    CHECK(middle3 / middle0 < cost(OpKind::F, 1, 3) / cost(OpKind::F, 1, 0));
    REQUIRE(balanced.memory.sliceScale.size() == 4 * 4); // per stage and slice
    CHECK(balanced.memory.sliceScale[0] > 1.0);
    CHECK(balanced.memory.sliceScale[3] < 1.0);
    CHECK(std::accumulate(balanced.memory.sliceScale.begin(), balanced.memory.sliceScale.begin() + 4, 0.0) ==
          Approx(4));
    CHECK(causalSetup.memory.sliceScale.empty()); // even tokens, causal kernels: even activations
    // Dense kernels keep each slice's rectangle of attention scores: later slices of even tokens
    // weigh more.
    REQUIRE(setup.memory.sliceScale.size() == 4 * 4);
    CHECK(setup.memory.sliceScale[4 + 3] > setup.memory.sliceScale[4 + 0]);
    // Measured costs that are all the same replace the model's spread; the cut still weighs memory.
    project.costs.sliceCosts = {1, 1, 1, 1};
    const CostSetup measured = buildCostSetup(project, s);
    CHECK(measured.costs.sliceScale[int(OpKind::F)].empty());
    CHECK(measured.memory.sliceScale == balanced.memory.sliceScale);
}

TEST_CASE("A balanced split holds more activations early: device 0 peaks above the even split",
          "[slices][memory]") {
    Project project = analyticSlices(4, 8, 4, 32768);
    project.memory.limitGib = 0;
    const Prediction even = predict(project, generateSchedule("seq1f1b", project.parallel));
    project.parallel.sliceSplit = SliceSplit::Balanced;
    const Prediction balanced = predict(project, generateSchedule("seq1f1b", project.parallel));
    // The last device holds k slices at once at most (k - 1 + 1): the first, longest ones of a
    // micro-batch are among them, so its peak rises.
    const auto peak = [](const Prediction& p, int d) {
        return p.report.memory.devices[std::size_t(d)].peakBytes -
               p.report.memory.devices[std::size_t(d)].staticBytes;
    };
    CHECK(peak(balanced, 3) > peak(even, 3));
    // ... and the balanced split's even costs shorten the iteration.
    CHECK(balanced.timeline.makespan() < even.timeline.makespan());
}

TEST_CASE("A slice's transfer carries its own tokens: a balanced split's sends differ", "[slices][comm]") {
    Project project = analyticSlices(4, 4, 4, 32768);
    project.parallel.sliceSplit = SliceSplit::Balanced;
    project.model.attention = Attention::Causal;
    project.memory.limitGib = 0;
    const Schedule s = generateSchedule("seq1f1b", project.parallel);
    const std::vector<int> lengths = sequenceSliceLengths(project, s);
    REQUIRE(lengths.size() == 4);
    CHECK(lengths.front() > 2 * lengths.back()); // the first slice attends to the fewest keys
    // One slice's activation on the wire: its tokens x micro-batch x hidden x 2 bytes (bf16, tp 1),
    // at 2400 Gbit/s (300 bytes/ns) after 5 µs of latency, all four devices on one node.
    const auto transferUs = [&](int q) {
        return 5.0 + double(lengths[std::size_t(q)]) * 1 * 2048 * 2 / (2400 * 125.0);
    };
    const CostSetup setup = buildCostSetup(project, s);
    REQUIRE(setup.p2pSliceShares.size() == 4);
    REQUIRE(setup.costs.commOfSlice.size() == 4);
    for (int q = 0; q < 4; ++q) {
        INFO("slice " << q);
        CHECK(setup.p2pSliceShares[std::size_t(q)] * setup.p2pBytesPerTransfer ==
              Approx(double(lengths[std::size_t(q)]) * 2048 * 2));
        CHECK(setup.costs.commOfSlice[std::size_t(q)] == Approx(transferUs(q)));
        CHECK(setup.costs.commBetween(0, 1, 2 * 4 + q) == Approx(transferUs(q))); // micro-batch 2, slice q
        CHECK(setup.costs.commBetween(1, 1, q) == 0);
    }
    // The prediction's transfers take their slice's time, in either direction.
    const Prediction prediction = predict(project, s);
    int transfers = 0;
    for (const TimelineEvent& e : prediction.timeline.events)
        if (e.isTransfer()) {
            ++transfers;
            CHECK(e.duration() == Approx(transferUs(e.op.mb % 4)));
        }
    CHECK(transfers == 2 * 3 * 4 * 4); // forward and backward, 3 boundaries, 4 micro-batches of 4 slices
    // The lowering of the prediction (a Chakra export's comm_size, what stagecraft-run sends) gives
    // each transfer its slice's bytes.
    const Lowered lowered =
        lower(prediction.schedule, boundaryBytesOf(prediction.schedule, prediction.setup.p2pBytesPerTransfer,
                                                   {}, prediction.setup.p2pSliceShares));
    for (const Program& program : lowered.programs)
        for (const Instruction& in : program.instructions)
            if (in.kind == InstrKind::Send || in.kind == InstrKind::Recv)
                CHECK(in.bytes == std::uint64_t(lengths[std::size_t(in.mb % 4)]) * 2048 * 2);
    // A given transfer time is the mean slice's; each slice moves its share.
    project.costs.mode = CostMode::Manual;
    project.costs.comm = 100;
    const CostSetup manual = buildCostSetup(project, s);
    REQUIRE(manual.costs.commOfSlice.size() == 4);
    for (int q = 0; q < 4; ++q)
        CHECK(manual.costs.commOfSlice[std::size_t(q)] ==
              Approx(100.0 * lengths[std::size_t(q)] * 4 / 32768));
    // A uniform split's slices are alike: one transfer time.
    project.parallel.sliceSplit = SliceSplit::Uniform;
    CHECK(buildCostSetup(project, s).costs.commOfSlice.empty());
    CHECK(buildCostSetup(project, s).p2pSliceShares.empty());
    // Shares that do not fit the slices are refused.
    LowerOptions wrong;
    wrong.sliceShares = {1.5, 0.5};
    CHECK_THROWS_WITH(lower(s, wrong), Catch::Contains("transfer shares are given for 2 sequence slices") &&
                                           Catch::Contains("into 4"));
    wrong.sliceShares = {1, 1, 0, 2};
    CHECK_THROWS_WITH(lower(s, wrong), Catch::Contains("slice 2's transfer share is 0"));
}

TEST_CASE("A sliced backward holds the earlier slices' key and value gradients", "[slices][memory]") {
    Project project = analyticSlices(2, 1, 2, 4096);
    project.model.layers = 4;
    project.model.attention = Attention::Causal;
    project.memory.limitGib = 0;
    const Schedule s = generateSchedule("seq1f1b", project.parallel);
    const Prediction prediction = predict(project, s);
    const MemoryInputs& inputs = prediction.setup.memory;
    // dK and dV of the first slice's 2048 tokens (b = 1, h = 2048, bf16), on each of a stage's two
    // layers: 2 x 2 x 2048 x 2048 x 2 bytes = 32 MiB.
    const double gradients = 2.0 * 2 * 2048 * 2048 * 2;
    REQUIRE(inputs.slices == 2);
    CHECK(inputs.stages[1].keyValueGradientBytes == gradients);
    // The last slice's backward (the first to run) allocates them, the first slice's frees them.
    const auto change = [&](int slice) {
        return opMemoryChange(inputs, 1, Op{OpKind::B, 0, 0, 1, slice}, false, false);
    };
    CHECK(change(1).allocated == gradients);
    CHECK(change(1).freed == Approx(inputs.stages[1].activationBytes));
    CHECK(change(0).allocated == 0);
    CHECK(change(0).freed == Approx(inputs.stages[1].activationBytes + gradients));
    // The last device peaks when its second slice's backward starts: both slices' activations and
    // the gradients, above its static memory.
    const DeviceMemory& last = prediction.report.memory.devices[1];
    CHECK(last.peakBytes - last.staticBytes == Approx(2 * inputs.stages[1].activationBytes + gradients));
    // Without slices there is nothing to accumulate.
    project.parallel.slices = 1;
    const Prediction whole = predict(project, generateSchedule("seq1f1b", project.parallel));
    CHECK(whole.setup.memory.stages[1].keyValueGradientBytes == 0);
}

TEST_CASE("Slice costs are checked against the slices", "[slices][errors]") {
    Project project = slicedProject(4, 8, 4);
    project.costs.sliceCosts = {1, 2};
    CHECK_THROWS_WITH(makespan(project), Catch::Contains("costs.slice_costs has 2 entries") &&
                                             Catch::Contains("parallel.slices = 4"));
    Project tooMany = slicedProject(2, 2, 8);
    tooMany.costs.mode = CostMode::Analytic;
    tooMany.model.seqLen = 4;
    CHECK_THROWS_WITH(makespan(tooMany), Catch::Contains("model.seq_len = 4 tokens cannot be cut into 8"));
    // The field itself: entries > 0, read from JSON and from --set, written back.
    Project p;
    CHECK_THROWS_WITH(setProjectField(p, "costs.slice_costs", "1,0"),
                      Catch::Contains("costs.slice_costs[1] = 0: must be > 0"));
    CHECK_THROWS_WITH(setProjectField(p, "costs.slice_costs", "1,x"),
                      Catch::Contains("each entry must be a number"));
    setProjectField(p, "costs.slice_costs", "1, 1.274");
    setProjectField(p, "parallel.slice_split", "balanced");
    const std::string json = projectToJson(p);
    CHECK_THAT(json,
               Catch::Contains("\"slice_costs\": [") && Catch::Contains("\"slice_split\": \"balanced\""));
    CHECK(parseProject(json, "p.json") == p);
    CHECK_THROWS_WITH(parseProject(R"({"stagecraft": 2, "costs": {"slice_costs": [1, "a"]}})", "bad.json"),
                      Catch::Contains("costs.slice_costs[1]"));
    // Written only when set: a default project's file is as before.
    CHECK_THAT(projectToJson(Project{}), !Catch::Contains("slice_costs") && !Catch::Contains("slice_split"));
}

TEST_CASE("Calibrating on a sliced run fits a micro-batch's costs and its slices' spread",
          "[slices][calibrate]") {
    // The "run": Seq1F1B with slices costing 1 : 1.5 : 2 : 2.5, manual costs per full stage.
    Project truth;
    truth.costs.mode = CostMode::Manual;
    truth.costs.f = 8000;
    truth.costs.b = 6000;
    truth.costs.w = 4000;
    truth.costs.sliceCosts = {1, 1.5, 2, 2.5};
    truth.parallel.pp = 2;
    truth.parallel.microbatches = 4;
    truth.parallel.slices = 4;
    truth.model.layers = 4;
    const Prediction run = predict(truth, generateSchedule("seq1f1b", truth.parallel));

    Project start = truth;
    start.costs.sliceCosts.clear();
    const CostFit fit = fitCosts(run.timeline, start);
    // A micro-batch's op costs the sum of its slices' (not one slice's): the run's per-stage costs.
    REQUIRE(fit.costs.layers.size() == 2);
    for (const LayerRangeCost& l : fit.costs.layers) {
        CHECK(l.f == Approx(8000));
        CHECK(l.b + l.w == Approx(10000)); // timed whole: B + W, split by the input share
    }
    // The slices' spread, relative to the mean slice.
    REQUIRE(fit.costs.sliceCosts.size() == 4);
    for (std::size_t q = 0; q < 4; ++q)
        CHECK(fit.costs.sliceCosts[q] == Approx(truth.costs.sliceCosts[q] / 1.75));
    CHECK_THAT(fit.sliceRule, Catch::Contains("0.571/0.857/1.143/1.429"));
    // The fitted project predicts the run.
    Project calibrated = start;
    calibrated.costs = fit.costs;
    const Prediction again = predict(calibrated, generateSchedule("seq1f1b", calibrated.parallel));
    CHECK(again.timeline.makespan() == Approx(run.timeline.makespan()).epsilon(1e-9));
    // A run without slices fits none.
    Project plain = start;
    const Prediction oneF = predict(plain, generateSchedule("1f1b", plain.parallel));
    const CostFit unsliced = fitCosts(oneF.timeline, plain);
    CHECK(unsliced.costs.sliceCosts.empty());
    CHECK(unsliced.sliceRule.empty());
}
