// The project-level cost model: manual costs per full stage (chunk fractions, unsplit backward,
// per-stage overrides), unit costs, and analytic costs checked against hand computations on a
// small model (FLOPs, link times, node placement, collectives, optimizer, ZeRO memory).
#include "error.h"
#include "generators/registry.h"
#include "sim/cost_model.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

Project manualProject(int pp, int m, double f, double b, double w, double comm = 0) {
    Project p;
    p.costs.mode = CostMode::Manual;
    p.costs.f = f;
    p.costs.b = b;
    p.costs.w = w;
    p.costs.comm = comm;
    p.parallel.pp = pp;
    p.parallel.microbatches = m;
    return p;
}

/// 4 layers, h = 64, a = 4, s = 32, V = 100, b = 2, bf16 on 100 TFLOP/s GPUs at efficiency 0.5:
/// 5e7 FLOP/µs.
Project smallAnalytic(int pp, int dp, int m) {
    Project p;
    p.model = ModelConfig{4, 64, 4, 32, 100, 2, DType::BF16};
    p.cluster = ClusterConfig{"A100-80GB", 8, 1, 100, 80, 2400, 200, 5};
    p.parallel = ParallelConfig{{pp, m, 2}, dp, 1};
    p.memory = MemoryConfig{80, 0, Recompute::None};
    p.costs.mode = CostMode::Analytic;
    p.costs.efficiency = 0.5;
    return p;
}

double dur(const CostSetup& c, OpKind kind, std::size_t slot) {
    return c.costs.duration[int(kind)][slot];
}

} // namespace

TEST_CASE("Manual costs: chunk ops cost their share of a full stage, an unsplit B costs b + w", "[costs]") {
    const Project p = manualProject(4, 8, 1000, 800, 600, 50);
    const CostSetup one = buildCostSetup(p, generateSchedule("1f1b", {4, 8, 1}));
    CHECK(dur(one, OpKind::F, 2) == 1000);
    CHECK(dur(one, OpKind::B, 2) == 1400);
    CHECK(dur(one, OpKind::W, 2) == 0);
    CHECK(one.costs.comm == 50);
    CHECK(one.costs.commBetween(0, 3, 0) == 50);
    CHECK(one.costs.commBetween(2, 2, 0) == 0);
    CHECK_FALSE(one.unitless);
    CHECK(one.summary.text == "manual: F 1 ms, B 800 µs, W 600 µs per stage, comm 50 µs");

    const CostSetup inter = buildCostSetup(p, generateSchedule("interleaved", {4, 8, 4}));
    REQUIRE(inter.costs.duration[0].size() == 16);
    for (std::size_t s = 0; s < 16; ++s) {
        CHECK(dur(inter, OpKind::F, s) == 250);
        CHECK(dur(inter, OpKind::B, s) == 350);
    }
    const CostSetup zbv = buildCostSetup(p, generateSchedule("zb-v", {4, 8, 1}));
    CHECK(dur(zbv, OpKind::F, 7) == 500);
    CHECK(dur(zbv, OpKind::B, 7) == 400);
    CHECK(dur(zbv, OpKind::W, 7) == 300);
    const CostSetup bit = buildCostSetup(p, generateSchedule("bitpipe", {4, 8, 1}));
    REQUIRE(bit.costs.duration[0].size() == 16); // 2 pipes x 8 half stages
    CHECK(dur(bit, OpKind::B, 15) == 700);
    // Manual mode times only what it is given: syncs and optimizer steps are free.
    CHECK(dur(bit, OpKind::GradSync, 3) == 0);
    CHECK(dur(bit, OpKind::Optimizer, 3) == 0);
}

TEST_CASE("Manual per-stage overrides land on the chunk stages whose layers lie in that full stage",
          "[costs]") {
    Project p = manualProject(4, 8, 10, 20, 30);
    p.costs.stages = {StageCostOverride{1, 100, 200, 300}, StageCostOverride{3, 1, 2, 3}};
    // Interleaved v = 2: S = 8, chunk stage s lies in full stage floor(s * 4 / 8).
    const CostSetup inter = buildCostSetup(p, generateSchedule("interleaved", {4, 8, 2}));
    const double f[8] = {5, 5, 50, 50, 5, 5, 0.5, 0.5};
    const double b[8] = {25, 25, 250, 250, 25, 25, 2.5, 2.5};
    for (std::size_t s = 0; s < 8; ++s) {
        INFO("stage " << s);
        CHECK(dur(inter, OpKind::F, s) == f[s]);
        CHECK(dur(inter, OpKind::B, s) == b[s]);
    }
    // BitPipe: both pipes, S = 8 each.
    const CostSetup bit = buildCostSetup(p, generateSchedule("bitpipe", {4, 8, 1}));
    for (std::size_t pipe = 0; pipe < 2; ++pipe)
        for (std::size_t s = 0; s < 8; ++s) CHECK(dur(bit, OpKind::F, pipe * 8 + s) == f[s]);
    // ZB-V splits the backward: W keeps its own override.
    const CostSetup zbv = buildCostSetup(p, generateSchedule("zb-v", {4, 8, 1}));
    CHECK(dur(zbv, OpKind::W, 2) == 150);
    CHECK(dur(zbv, OpKind::B, 2) == 100);
    CHECK(dur(zbv, OpKind::W, 7) == 1.5);
    CHECK(bit.summary.text ==
          "manual: F 30.25 µs, B 60.5 µs, W 90.75 µs per stage, comm 0 µs, 2 stage overrides");

    p.costs.stages = {StageCostOverride{4, 1, 1, 1}};
    try {
        buildCostSetup(p, generateSchedule("1f1b", {4, 8, 1}));
        FAIL("expected a ValidationError");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "costs.stages");
        CHECK(std::string(e.what()).find(
                  "costs.stages[0].stage = 4: overrides name a full stage 0..3 (pp = 4)") !=
              std::string::npos);
    }
}

TEST_CASE("Costs per range of layers price every schedule's stages by the layers they hold", "[costs]") {
    // 30 layers in 3 ranges of unequal cost (µs per range, i.e. per layer: 1, 2, 3 forward).
    Project p = manualProject(2, 8, 1000, 1000, 1000);
    p.model.layers = 30;
    p.costs.layers = {{0, 9, 10, 20, 30}, {10, 19, 20, 40, 60}, {20, 29, 30, 60, 90}};
    // 1F1B on 2 devices: 15 layers each.
    const CostSetup one = buildCostSetup(p, generateSchedule("1f1b", {2, 8, 1}));
    CHECK(dur(one, OpKind::F, 0) == Approx(10 + 5 * 2));
    CHECK(dur(one, OpKind::F, 1) == Approx(5 * 2 + 30));
    CHECK(dur(one, OpKind::B, 1) == Approx(5 * 4 + 60 + 5 * 6 + 90)); // a whole backward: b + w
    CHECK(one.summary.text ==
          "manual: F 30 µs, B 60 µs, W 90 µs per stage, comm 0 µs, per-layer costs (3 ranges)");
    // ZB-V on 2 devices: 4 stages of (30 + 2) / 4 = 8 layers with one fewer on the ends: 7, 8, 8, 7.
    const CostSetup zbv = buildCostSetup(p, generateSchedule("zb-v", {2, 8, 1}));
    CHECK(dur(zbv, OpKind::F, 0) == Approx(7));
    CHECK(dur(zbv, OpKind::F, 1) == Approx(3 + 5 * 2));
    CHECK(dur(zbv, OpKind::W, 3) == Approx(7 * 9));
    // A schedule file of 7 stages: 30 / 7 layers each, fractional.
    Project seven = p;
    seven.parallel.pp = 7;
    const CostSetup file = buildCostSetup(seven, generateSchedule("gpipe", {7, 8, 1}));
    double total = 0;
    for (std::size_t s = 0; s < 7; ++s) total += dur(file, OpKind::F, s);
    CHECK(total == Approx(60));
    CHECK(dur(file, OpKind::F, 0) == Approx(30.0 / 7));
    // A full-stage override still replaces the stages it names.
    p.costs.stages = {StageCostOverride{1, 100, 200, 300}};
    CHECK(dur(buildCostSetup(p, generateSchedule("1f1b", {2, 8, 1})), OpKind::F, 1) == 100);
    // Ranges that do not describe the model are refused, naming the entry.
    p.model.layers = 24;
    try {
        buildCostSetup(p, generateSchedule("1f1b", {2, 8, 1}));
        FAIL("ranges of 30 layers priced a model of 24");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "project.field");
        CHECK(e.field() == "costs.layers");
        CHECK(e.message().starts_with("costs.layers[2].last = 29: the ranges end at the model's last layer"));
    }
}

TEST_CASE("The schedule must run on parallel.pp devices", "[costs]") {
    const Project p = manualProject(8, 8, 1, 1, 1);
    try {
        buildCostSetup(p, generateSchedule("1f1b", {4, 8, 1}));
        FAIL("expected a ValidationError");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "costs.devices");
        CHECK(std::string(e.what()).find("parallel.pp = 8, but schedule '1f1b' runs on 4 pipeline devices") !=
              std::string::npos);
    }
}

TEST_CASE("Unit costs: F = B = W = 1 per full stage, no communication, memory in M_a", "[costs]") {
    Project p = manualProject(4, 8, 5, 5, 5, 3);
    p.costs.mode = CostMode::Unit;
    const CostSetup c = buildCostSetup(p, generateSchedule("interleaved", {4, 8, 2}));
    CHECK(c.unitless);
    CHECK(dur(c, OpKind::F, 0) == 0.5);
    CHECK(dur(c, OpKind::B, 0) == 1.0);
    CHECK(c.costs.comm == 0);
    CHECK(c.memory.stages[0].activationBytes == 0.5);
    CHECK(c.memory.stages[0].staticBytes == 0);
    CHECK(c.summary.text == "unit: F = B = W = 1 per stage, no communication");
}

TEST_CASE("Analytic costs equal a hand computation on a small model", "[costs]") {
    const Project p = smallAnalytic(2, 1, 4);
    const CostSetup c = buildCostSetup(p, generateSchedule("1f1b", {2, 4, 1}));
    // Per layer: F = sbh(24h + 4s) = 4096 * 1664, B = 4096 * 1792, W = 24 * 4096 * 64; LM head
    // 2sbhV = 819200 on the last stage's F, B and W. Two layers per stage. 5e7 FLOP/µs.
    CHECK(dur(c, OpKind::F, 0) == Approx(13631488.0 / 5e7));
    CHECK(dur(c, OpKind::B, 0) == Approx(27262976.0 / 5e7));
    CHECK(dur(c, OpKind::F, 1) == Approx(14450688.0 / 5e7));
    CHECK(dur(c, OpKind::B, 1) == Approx(28901376.0 / 5e7));
    // Split backward: B and W apart.
    const CostSetup z = buildCostSetup(p, generateSchedule("zb-h1", {2, 4, 1}));
    CHECK(dur(z, OpKind::B, 1) == Approx((2 * 7340032.0 + 819200) / 5e7));
    CHECK(dur(z, OpKind::W, 1) == Approx((2 * 6291456.0 + 819200) / 5e7));
    // One micro-batch: 4 layers x (F + B + W) + 3 x LM head; 4 micro-batches, dp = 1.
    CHECK(c.flopsPerIteration == Approx(4.0 * 84246528.0));
    // p2p: s·b·h·2 = 8192 bytes; 2400 Gbit/s = 300000 bytes/µs; 5 µs latency.
    CHECK(c.p2pBytesPerTransfer == 8192);
    CHECK(c.costs.comm == Approx(5 + 8192.0 / 300000.0));
    CHECK(c.costs.commInterNode == Approx(5 + 8192.0 / 25000.0));
    CHECK(c.summary.commIntra == c.costs.comm);
    // Summary: means over the p full stages, B and W apart even when the schedule merges them.
    CHECK(c.summary.f == Approx((13631488.0 + 14450688.0) / 2 / 5e7));
    CHECK(c.summary.b == Approx((4 * 7340032.0 + 819200) / 2 / 5e7));
    CHECK(c.summary.w == Approx((4 * 6291456.0 + 819200) / 2 / 5e7));
    CHECK(c.summary.text ==
          "analytic: F 0.281 µs, B 0.302 µs, W 0.26 µs per stage, p2p 5.027 µs intra / 5.328 µs inter");
    CHECK(z.summary.text == c.summary.text);

    // Recompute: full repeats the forward in B, selective the attention core 4·s²·b·h.
    Project full = p;
    full.memory.recompute = Recompute::Full;
    CHECK(dur(buildCostSetup(full, generateSchedule("1f1b", {2, 4, 1})), OpKind::B, 0) ==
          Approx((27262976.0 + 13631488.0) / 5e7));
    Project selective = p;
    selective.memory.recompute = Recompute::Selective;
    CHECK(dur(buildCostSetup(selective, generateSchedule("1f1b", {2, 4, 1})), OpKind::B, 0) ==
          Approx((27262976.0 + 2 * 4.0 * 32 * 32 * 2 * 64) / 5e7));
}

TEST_CASE("Causal attention kernels halve the attention matmuls, and slices split them by causal pairs",
          "[costs]") {
    // The small model's dense attention core per layer forward is 4·s²·b·h = 524288 FLOPs; causal
    // kernels compute half: 262144 less per layer in F, 524288 less in B (its two attention
    // products), and a selective recompute repeats the causal half.
    Project p = smallAnalytic(2, 1, 4);
    p.model.attention = Attention::Causal;
    const CostSetup c = buildCostSetup(p, generateSchedule("1f1b", {2, 4, 1}));
    CHECK(dur(c, OpKind::F, 0) == Approx((13631488.0 - 2 * 262144.0) / 5e7));
    CHECK(dur(c, OpKind::B, 0) == Approx((27262976.0 - 2 * 524288.0) / 5e7));
    CHECK(dur(c, OpKind::F, 1) == Approx((14450688.0 - 2 * 262144.0) / 5e7));
    CHECK(c.flopsPerIteration == Approx(4.0 * 84246528.0)); // model FLOPs stay Megatron's dense count
    Project selective = p;
    selective.memory.recompute = Recompute::Selective;
    CHECK(dur(buildCostSetup(selective, generateSchedule("1f1b", {2, 4, 1})), OpKind::B, 0) ==
          Approx((27262976.0 - 2 * 524288.0 + 2 * 262144.0) / 5e7));
    Project full = p;
    full.memory.recompute = Recompute::Full;
    CHECK(dur(buildCostSetup(full, generateSchedule("1f1b", {2, 4, 1})), OpKind::B, 0) ==
          Approx((27262976.0 - 2 * 524288.0 + 13631488.0 - 2 * 262144.0) / 5e7));

    // Seq1F1B, k = 2 even slices of 16 tokens: slice 0 computes 16·16 - 16²/2 = 128 of the 512
    // causal pairs, slice 1 16·32 - 128 = 384. Stage 0's causal F is 12582912 FLOPs of linear work
    // and 524288 of attention: slice 0 = 6291456 + 131072, slice 1 = 6291456 + 393216.
    Project sliced = p;
    sliced.parallel.slices = 2;
    const Schedule seq = generateSchedule("seq1f1b", scheduleParams(sliced));
    const CostSetup q = buildCostSetup(sliced, seq);
    const Op slice0{OpKind::F, 0, 0, 0, 0}, slice1{OpKind::F, 0, 0, 0, 1};
    CHECK(q.costs.of(slice0, seq.stagesPerPipe) == Approx(6422528.0 / 5e7));
    CHECK(q.costs.of(slice1, seq.stagesPerPipe) == Approx(6684672.0 / 5e7));
    // Dense kernels compute each slice's queries against every key so far, the rectangle s·P of the
    // 32 x 32 square of 1048576 attention FLOPs: slice 0 16·16 = 1/4 of it, slice 1 16·32 = 1/2. The
    // sliced micro-batch computes 3/4 of the square, where unsliced dense kernels compute all of it.
    sliced.model.attention = Attention::Dense;
    const CostSetup d = buildCostSetup(sliced, seq);
    CHECK(d.costs.of(slice0, seq.stagesPerPipe) == Approx((6291456.0 + 262144.0) / 5e7));
    CHECK(d.costs.of(slice1, seq.stagesPerPipe) == Approx((6291456.0 + 524288.0) / 5e7));
    // Its backward: twice the attention FLOPs of the forward, over the same rectangles.
    const Op back0{OpKind::B, 0, 0, 0, 0}, back1{OpKind::B, 0, 0, 0, 1};
    const double linearB = 27262976.0 - 2 * 1048576.0; // the dense B less its attention
    CHECK(d.costs.of(back0, seq.stagesPerPipe) == Approx((linearB / 2 + 2 * 262144.0) / 5e7));
    CHECK(d.costs.of(back1, seq.stagesPerPipe) == Approx((linearB / 2 + 2 * 524288.0) / 5e7));
    // Manual costs are what a micro-batch costs as the schedule runs it: split in the rectangles'
    // proportion, their total kept.
    Project manual = sliced;
    manual.costs.mode = CostMode::Manual;
    manual.costs.f = 100;
    const CostSetup m = buildCostSetup(manual, seq);
    CHECK(m.costs.of(slice0, seq.stagesPerPipe) + m.costs.of(slice1, seq.stagesPerPipe) ==
          Approx(100.0)); // a micro-batch through a full stage
    CHECK(m.costs.of(slice1, seq.stagesPerPipe) / m.costs.of(slice0, seq.stagesPerPipe) ==
          Approx((6291456.0 + 524288.0) / (6291456.0 + 262144.0)));
}

TEST_CASE("Analytic mode needs layers that split into the schedule's stages", "[costs]") {
    Project p = smallAnalytic(2, 1, 4);
    p.model.layers = 5;
    try {
        buildCostSetup(p, generateSchedule("1f1b", {2, 4, 1}));
        FAIL("expected a ValidationError");
    } catch (const ValidationError& e) {
        CHECK(e.id() == "project.layers");
        // The one layer-split rule and text (project/layer_split.h), with what would fit.
        CHECK(e.message() == "model.layers = 5: 1f1b has 2 stages per pipe and needs layers % stages == 0, "
                             "or (layers + 2) % stages == 0 with one layer fewer on the first and last stage "
                             "(4 or 6 layers would split); the analytic cost model needs the split (unit and "
                             "manual costs do not)");
    }
    // Manual mode only needs the layers for memory and shares them evenly.
    p.costs.mode = CostMode::Manual;
    CHECK(buildCostSetup(p, generateSchedule("1f1b", {2, 4, 1})).memory.stages.size() == 2);
}

TEST_CASE("Pipeline devices sit on nodes in Megatron's rank order (tp, then dp, then pp)", "[costs]") {
    Project p = smallAnalytic(4, 2, 8);
    p.cluster.gpusPerNode = 4;
    CHECK(nodeOfPipelineDevice(p, 4) == std::vector<int>{0, 0, 1, 1});
    p.parallel.dp = 1;
    p.parallel.tp = 2;
    p.cluster.gpusPerNode = 8;
    CHECK(nodeOfPipelineDevice(p, 4) == std::vector<int>{0, 0, 0, 0});
    p.parallel.dp = 4;
    CHECK(nodeOfPipelineDevice(p, 4) == std::vector<int>{0, 1, 2, 3});
    p.parallel.dp = 1;
    p.parallel.tp = 1;
    p.cluster.gpusPerNode = 3;
    CHECK(nodeOfPipelineDevice(p, 7) == std::vector<int>{0, 0, 0, 1, 1, 1, 2});
}

TEST_CASE("Gradient syncs and optimizer steps: ring collectives and an HBM-bound Adam step", "[costs]") {
    Project p = smallAnalytic(2, 4, 4);
    const double params0 = 2 * (12.0 * 64 * 64 + 13 * 64) + 100 * 64; // two layers + embedding
    const double bytesPerUs = 2400 * 125.0;
    {
        const CostSetup c = buildCostSetup(p, generateSchedule("1f1b", {2, 4, 1}));
        // All-reduce of bf16 gradients over dp = 4 ranks, all on node 0.
        CHECK(dur(c, OpKind::GradSync, 0) == Approx(2.0 * 3 / 4 * params0 * 2 / bytesPerUs + 6 * 5.0));
        // 30 bytes per parameter at the A100-80GB's 2.039 TB/s.
        CHECK(dur(c, OpKind::Optimizer, 0) == Approx(params0 * 30 / 2.039e6));
        // Each of dp x tp GPUs sends 2(n-1)/n of the gradients; both stages hold the same count.
        CHECK(c.collectiveBytesPerIteration == Approx(2 * (2.0 * 3 / 4 * params0 * 2 * 4)));
    }
    p.memory.zeroStage = 1;
    {
        const CostSetup c = buildCostSetup(p, generateSchedule("1f1b", {2, 4, 1}));
        CHECK(dur(c, OpKind::GradSync, 0) == Approx(3.0 / 4 * params0 * 2 / bytesPerUs + 3 * 5.0));
        CHECK(dur(c, OpKind::Optimizer, 0) == Approx(params0 / 4 * 30 / 2.039e6));
    }
    // Chimera: the two weight replicas of a stage sync over 2·dp ranks; with 2 GPUs per node the
    // replicas of stage 0 (devices 0 and 1: ranks 0..1 and 2..3) span two nodes.
    p.memory.zeroStage = 0;
    p.cluster.gpusPerNode = 2;
    p.parallel.dp = 2;
    const CostSetup c = buildCostSetup(p, generateSchedule("chimera", {2, 4, 1}));
    CHECK(dur(c, OpKind::GradSync, 0) == Approx(2.0 * 3 / 4 * params0 * 2 / (200 * 125.0) + 6 * 5.0));
    p.cluster.gpusPerNode = 4;
    CHECK(dur(buildCostSetup(p, generateSchedule("chimera", {2, 4, 1})), OpKind::GradSync, 0) ==
          Approx(2.0 * 3 / 4 * params0 * 2 / bytesPerUs + 6 * 5.0));
    CHECK(hbmBytesPerUs("NVIDIA H100 SXM") == 3.35e6);
    CHECK(hbmBytesPerUs("a100-40gb") == 1.555e6);
    CHECK(hbmBytesPerUs("unknown") == 2e6);
}

TEST_CASE("ZeRO stages shard optimizer state, then gradients, then weights", "[costs]") {
    Project p = smallAnalytic(2, 4, 4);
    const double params0 = 2 * (12.0 * 64 * 64 + 13 * 64) + 100 * 64;
    const double expected[4] = {2 + 4 + 12, 2 + 4 + 3, 2 + 1 + 3, 0.5 + 1 + 3};
    for (int zero = 0; zero <= 3; ++zero) {
        p.memory.zeroStage = zero;
        INFO("zero " << zero);
        const CostSetup c = buildCostSetup(p, generateSchedule("1f1b", {2, 4, 1}));
        CHECK(c.memory.stages[0].staticBytes == Approx(params0 * expected[zero]));
        CHECK(c.memory.stages[1].staticBytes == Approx(params0 * expected[zero]));
    }
    // fp32 models keep no master copy: 4 + 4 + 8 bytes per parameter.
    p.memory.zeroStage = 0;
    p.model.dtype = DType::FP32;
    CHECK(buildCostSetup(p, generateSchedule("1f1b", {2, 4, 1})).memory.stages[0].staticBytes ==
          Approx(params0 * 16));
}

TEST_CASE("Activation memory per stage: M_B, M_W, recompute and the logits", "[costs]") {
    Project p = smallAnalytic(2, 1, 4);
    const double sbh = 32.0 * 2 * 64;
    const double mb = sbh * (34 + 5.0 * 4 * 32 / 64); // per layer, bf16
    const double logits = 4.0 * 32 * 2 * 100;
    const CostSetup z = buildCostSetup(p, generateSchedule("zb-h1", {2, 4, 1}));
    // 1F1B's first stage under the project as it is set at that point.
    const auto firstStage = [](const Project& project) {
        return buildCostSetup(project, generateSchedule("1f1b", {2, 4, 1})).memory.stages[0];
    };
    CHECK(z.memory.stages[0].activationBytes == Approx(2 * mb));
    CHECK(z.memory.stages[1].activationBytes == Approx(2 * mb + logits));
    CHECK(z.memory.stages[0].keptForWBytes == Approx(2 * 32 * sbh));
    CHECK(firstStage(p).keptForWBytes == 0);
    p.memory.recompute = Recompute::Selective;
    CHECK(firstStage(p).activationBytes == Approx(2 * 34 * sbh));
    p.memory.recompute = Recompute::Full;
    CHECK(firstStage(p).activationBytes == Approx(2 * 2 * sbh));
    // Sequence slices (Seq1F1B, k = 2 of 16 tokens): slice q keeps its tokens' 34·s·b·h and the
    // s x P scores dense kernels compute, 5·a·16·16·b for slice 0 and 5·a·16·32·b for slice 1
    // (a whole layer: 139264 + 40960); the last stage adds the logits, 25600, by tokens. Relative
    // to half a micro-batch's.
    {
        Project sliced = smallAnalytic(2, 1, 4);
        sliced.parallel.slices = 2;
        const CostSetup q = buildCostSetup(sliced, generateSchedule("seq1f1b", scheduleParams(sliced)));
        const double first = 2 * 139264.0 + 2 * 40960.0, last = first + 25600.0;
        const std::vector<double> weights{2 * (2 * 69632.0 + 2 * 10240.0) / first,
                                          2 * (2 * 69632.0 + 2 * 20480.0) / first,
                                          2 * (2 * 69632.0 + 12800.0 + 2 * 10240.0) / last,
                                          2 * (2 * 69632.0 + 12800.0 + 2 * 20480.0) / last};
        REQUIRE(q.memory.sliceScale.size() == weights.size());
        for (std::size_t i = 0; i < weights.size(); ++i) CHECK(q.memory.sliceScale[i] == Approx(weights[i]));
    }
    // Causal kernels (flash attention) keep no s x s scores: what selective recompute keeps, and
    // full recompute still keeps only the stage's inputs.
    p.model.attention = Attention::Causal;
    CHECK(firstStage(p).activationBytes == Approx(2 * 2 * sbh));
    p.memory.recompute = Recompute::None;
    CHECK(firstStage(p).activationBytes == Approx(2 * 34 * sbh));
    p.memory.recompute = Recompute::Full;
    p.memory.limitGib = 2;
    CHECK(buildCostSetup(p, generateSchedule("1f1b", {2, 4, 1})).memory.limitBytes ==
          2.0 * 1024 * 1024 * 1024);
}
