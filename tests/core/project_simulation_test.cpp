// predict(): the project-level pipeline (iteration tail, costs, simulation, metrics, memory,
// throughput). Unit costs reproduce the golden bubble table, manual costs the closed forms with
// communication, analytic costs the throughput/MFU identities, the memory limit check, and the
// orderings the zero-bubble and BitPipe papers report on their setups.
#include "eval/project_simulation.h"
#include "generators/registry.h"
#include "project/project_json.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <map>

using namespace stagecraft;

namespace {

Project unitProject(int pp, int m) {
    Project p;
    p.costs.mode = CostMode::Unit;
    p.parallel.pp = pp;
    p.parallel.microbatches = m;
    return p;
}

Project manualProject(int pp, int m, double f, double b, double w, double comm = 0) {
    Project p;
    p.costs = CostsConfig{CostMode::Manual, f, b, w, comm, 0.5, {}};
    p.parallel.pp = pp;
    p.parallel.microbatches = m;
    return p;
}

ScheduleReport reportOf(const Project& p, const char* name, int v = 1) {
    return predict(p, generateSchedule(name, {p.parallel.pp, p.parallel.microbatches, v})).report;
}

double longestSpan(const TimeMetrics& t) {
    double longest = 0;
    for (const auto& d : t.devices) longest = std::max(longest, d.span());
    return longest;
}

struct Row {
    int p, m;
    double gpipe, ofob, interleaved, bfs, chimera, bitpipe, zbh1, zbh2, zbv; // NAN = not defined
};

// golden.md §4, the T_B = 2T_F rows (unit costs: F = 1, B + W = 2) and the T_F = T_B rows.
// clang-format off
const Row kDoubleB[] = {
    {4, 4, 0.4286, 0.4286, 0.2727, 0.2727, 0.2500, 0.1429, 0.2000, NAN, 0.2000},
    {4, 8, 0.2727, 0.2727, 0.1579, 0.1579, 0.2000, 0.1111, 0.1111, 0.0000, 0.0000},
    {4, 16, 0.1579, 0.1579, 0.0857, 0.0857, 0.1724, 0.0943, 0.0588, 0.0000, 0.0000},
    {8, 8, 0.4667, 0.4667, 0.3043, 0.3043, 0.3333, 0.2000, 0.2258, NAN, 0.2258},
    {8, 16, 0.3043, 0.3043, 0.1795, 0.1795, 0.2727, 0.1579, 0.1273, 0.0000, 0.0000},
    {8, 32, 0.1795, 0.1795, 0.0986, 0.0986, NAN, 0.1351, 0.0680, 0.0000, 0.0000},
};
const Row kEqualB[] = {
    {4, 4, 0.4286, 0.4286, 0.2727, 0.2727, 0.2000, 0.1111, 0.2727, NAN, 0.2195},
    {4, 8, 0.2727, 0.2727, 0.1579, 0.1579, 0.1111, 0.0588, 0.1579, 0.0857, 0.0857},
    {4, 16, 0.1579, 0.1579, 0.0857, 0.0857, 0.0588, 0.0303, 0.0857, 0.0448, 0.0448},
    {8, 8, 0.4667, 0.4667, 0.3043, 0.3043, 0.2727, 0.1579, 0.3043, NAN, 0.2471},
    {8, 16, 0.3043, 0.3043, 0.1795, 0.1795, 0.1579, 0.0857, 0.1795, 0.0986, 0.0986},
    {8, 32, 0.1795, 0.1795, 0.0986, 0.0986, NAN, 0.0448, 0.0986, 0.0519, 0.0519},
};
// clang-format on

void checkRow(const Project& p, const Row& row) {
    INFO("p=" << row.p << " m=" << row.m << " mode " << costModeName(p.costs.mode));
    const auto ratio = [&](const char* name, int v = 1) { return reportOf(p, name, v).time.bubbleRatio; };
    const auto span = [&](const char* name) { return reportOf(p, name).time.spanBubbleRatio; };
    CHECK(ratio("gpipe") == Approx(row.gpipe).margin(5e-5));
    CHECK(ratio("1f1b") == Approx(row.ofob).margin(5e-5));
    CHECK(ratio("interleaved", 2) == Approx(row.interleaved).margin(5e-5));
    CHECK(ratio("breadth-first", 2) == Approx(row.bfs).margin(5e-5));
    if (!std::isnan(row.chimera)) CHECK(ratio("chimera") == Approx(row.chimera).margin(5e-5));
    CHECK(ratio("bitpipe") == Approx(row.bitpipe).margin(5e-5));
    CHECK(ratio("zb-h1") == Approx(row.zbh1).margin(5e-5));
    if (!std::isnan(row.zbh2)) CHECK(span("zb-h2") == Approx(row.zbh2).margin(5e-5));
    CHECK(span("zb-v") == Approx(row.zbv).margin(5e-5));
}

} // namespace

TEST_CASE("Unit costs through predict() reproduce the golden bubble table", "[costs][golden]") {
    for (const Row& row : kDoubleB) checkRow(unitProject(row.p, row.m), row);
    // T_F = T_B: manual costs F = 1, B = W = 1/2, no communication.
    for (const Row& row : kEqualB) checkRow(manualProject(row.p, row.m, 1, 0.5, 0.5), row);
}

TEST_CASE("Unit costs through predict() reproduce the golden makespans and peaks", "[costs][golden]") {
    const Project p4m8 = unitProject(4, 8);
    const ScheduleReport ofob = reportOf(p4m8, "1f1b");
    CHECK(ofob.unitless);
    CHECK(ofob.iterationUs == 33);
    CHECK(ofob.time.makespan == 33);
    CHECK(ofob.samplesPerSecond == 0);
    CHECK(ofob.costs.mode == "unit");
    CHECK(reportOf(p4m8, "gpipe").iterationUs == 33);
    CHECK(reportOf(p4m8, "zb-h1").iterationUs == 27);
    CHECK(longestSpan(reportOf(p4m8, "zb-h2").time) == 24);
    CHECK(longestSpan(reportOf(p4m8, "zb-v").time) == 24);       // 48 in chunk units of 1/2
    CHECK(reportOf(p4m8, "interleaved", 2).iterationUs == 28.5); // 57 in chunk units
    CHECK(reportOf(p4m8, "bitpipe").iterationUs == 27);          // 54 in chunk units (code order)
    CHECK(reportOf(unitProject(4, 4), "chimera").iterationUs == 16);
    CHECK(reportOf(unitProject(4, 4), "bitpipe").iterationUs == 14);
    CHECK(reportOf(manualProject(4, 4, 1, 0.5, 0.5), "chimera").iterationUs == 10);

    // Peaks of in-flight activations in M_a (golden.md §6.3).
    const auto peaks = [](const ScheduleReport& r) {
        std::vector<double> out;
        for (const auto& d : r.memory.devices) out.push_back(d.peakBytes);
        return out;
    };
    CHECK(peaks(ofob) == std::vector<double>{4, 3, 2, 1});
    CHECK(peaks(reportOf(p4m8, "zb-h1")) == std::vector<double>{4, 4, 4, 4});
    CHECK(peaks(reportOf(p4m8, "zb-h2")) == std::vector<double>{7, 7, 7, 7});
    CHECK(peaks(reportOf(p4m8, "zb-v")) == std::vector<double>{4, 4, 4, 4});
    CHECK(peaks(reportOf(unitProject(4, 4), "chimera")) == std::vector<double>{3, 4, 4, 3});
    CHECK(ofob.memory.fits);
}

TEST_CASE("Manual costs: communication appears as the closed forms say", "[costs]") {
    for (int p = 2; p <= 8; ++p)
        for (const double comm : {0.0, 0.3, 1.7})
            for (int m = 1; m <= 3 * p; ++m) {
                INFO("p=" << p << " m=" << m << " comm=" << comm);
                const Project pr = manualProject(p, m, 1.5, 2.25, 1.0, comm);
                const double closed = (m + p - 1) * (1.5 + 2.25 + 1.0) + 2 * (p - 1) * comm;
                // GPipe: the first micro-batch's round trip through every link, (p-1)(T_F+T_B+2T_comm) idle.
                CHECK(reportOf(pr, "gpipe").iterationUs == Approx(closed));
                // 1F1B: the same for m <= 2. Each later micro-batch's strict F-B alternation waits for
                // one more round trip, except every p-th (found by the sweep; a lower bound in any case).
                const int extra = std::max(0, m - 2);
                const int exposed = extra - extra / p; // every p-th round trip stays hidden
                CHECK(reportOf(pr, "1f1b").iterationUs == Approx(closed + 2 * comm * exposed).epsilon(1e-12));
            }
}

TEST_CASE("Manual costs: ZB-H2's span bubble is (p-1)(T_F + T_B + 2T_comm - 2T_W) with m >= 2p", "[costs]") {
    const double costs[][3] = {{1, 1, 1}, {1.5, 2.25, 1}, {1, 1, 0.5}, {2, 1, 1.2}};
    for (int p = 2; p <= 8; ++p)
        for (const int m : {2 * p, 3 * p + 1})
            for (const auto& c : costs)
                for (const double comm : {0.0, 0.3}) {
                    INFO("p=" << p << " m=" << m << " F,B,W=" << c[0] << "," << c[1] << "," << c[2]
                              << " comm=" << comm);
                    const ScheduleReport r = reportOf(manualProject(p, m, c[0], c[1], c[2], comm), "zb-h2");
                    const double busy = m * (c[0] + c[1] + c[2]);
                    const double bubble = (p - 1) * (c[0] + c[1] + 2 * comm - 2 * c[2]);
                    CHECK(longestSpan(r.time) - busy == Approx(std::max(0.0, bubble)).margin(1e-9));
                }
}

TEST_CASE("Analytic prediction: throughput, TFLOP/s and MFU follow from the iteration time", "[costs]") {
    Project p;
    p.model = ModelConfig{4, 64, 4, 32, 100, 2, DType::BF16};
    p.cluster = ClusterConfig{"A100-80GB", 8, 1, 100, 80, 2400, 200, 5};
    p.parallel = ParallelConfig{{2, 4, 2}, 2, 1};
    p.costs.mode = CostMode::Analytic;
    p.costs.efficiency = 0.5;
    const Prediction pr = predict(p, generateSchedule("1f1b", {2, 4, 1}));
    const ScheduleReport& r = pr.report;
    CHECK_FALSE(r.unitless);
    CHECK(r.schedule == "1f1b");
    CHECK(r.iterationUs == r.time.makespan);
    const double seconds = r.iterationUs * 1e-6;
    CHECK(r.samplesPerSecond == Approx(4 * 2 * 2 / seconds)); // m x b x dp
    CHECK(r.tokensPerSecond == Approx(r.samplesPerSecond * 32));
    // dp = 2 replicas of 4 micro-batches of 84246528 model FLOPs over 4 GPUs.
    CHECK(r.tflopsPerGpu == Approx(2 * 4 * 84246528.0 / seconds / 4 / 1e12));
    CHECK(r.mfu == Approx(r.tflopsPerGpu / 100));
    // 1F1B p=2 m=4: 4 activations and 4 gradients cross the link per replica, 8192 bytes each.
    CHECK(r.p2pBytes == 8 * 8192.0 * 2);
    CHECK(r.collectiveBytes == pr.setup.collectiveBytesPerIteration);
    // The tail is there: one GradSync and one Optimizer per device, with durations.
    CHECK(pr.schedule.order[0].back().kind == OpKind::Optimizer);
    CHECK(pr.setup.costs.duration[int(OpKind::GradSync)][0] > 0);
    // Busy time: every compute op plus the optimizer step.
    const auto& c = pr.setup.costs.duration;
    CHECK(r.time.devices[0].busy == Approx(4 * (c[0][0] + c[1][0]) + c[int(OpKind::Optimizer)][0]));
}

TEST_CASE("Analytic prediction: inter-node time on exactly the links between nodes", "[costs]") {
    Project p;
    p.model = ModelConfig{8, 256, 8, 128, 1000, 2, DType::BF16};
    p.cluster = ClusterConfig{"A100-80GB", 4, 2, 312, 80, 2400, 200, 5};
    p.parallel = ParallelConfig{{4, 8, 2}, 2, 1};
    p.costs.mode = CostMode::Analytic;
    const Prediction pr = predict(p, generateSchedule("1f1b", {4, 8, 1}));
    const double intra = pr.setup.costs.comm, inter = pr.setup.costs.commInterNode;
    REQUIRE(inter > intra);
    int interCount = 0, intraCount = 0;
    for (const TimelineEvent& e : pr.timeline.events) {
        if (e.comm != CommKind::Activation && e.comm != CommKind::Gradient) continue;
        const bool crossesNodes = (e.device < 2) != (e.peer < 2); // devices 0,1 on node 0; 2,3 on node 1
        CHECK(e.duration() == Approx(crossesNodes ? inter : intra));
        (crossesNodes ? interCount : intraCount) += 1;
    }
    CHECK(interCount == 2 * 8);
    CHECK(intraCount == 2 * 2 * 8);
}

TEST_CASE("Memory over the limit is reported with the excess", "[costs]") {
    Project p = manualProject(4, 8, 1, 1, 1);
    p.model = ModelConfig{8, 256, 8, 128, 1000, 2, DType::BF16};
    p.memory.limitGib = 0.05;
    const ScheduleReport r = reportOf(p, "1f1b");
    // Stage 0: two layers (12h² + 13h each) and the embedding, 18 bytes per parameter; activations
    // sbh(34 + 5as/h) per layer; device 0 holds p = 4 micro-batches at its peak.
    const double params = 2 * (12.0 * 256 * 256 + 13 * 256) + 1000 * 256;
    const double act = 2 * 128.0 * 2 * 256 * (34 + 5.0 * 8 * 128 / 256);
    const double peak = 18 * params + 4 * act;
    CHECK(r.memory.worstDevice == 0);
    CHECK(r.memory.devices[0].peakBytes == Approx(peak));
    CHECK_FALSE(r.memory.fits);
    CHECK(r.memory.limitBytes == Approx(0.05 * 1024 * 1024 * 1024));
    CHECK(r.memory.overBytes == Approx(peak - 0.05 * 1024 * 1024 * 1024));
    p.memory.limitGib = 1;
    CHECK(reportOf(p, "1f1b").memory.fits);
    CHECK(reportOf(p, "1f1b").memory.overBytes == 0);
}

TEST_CASE("The memory budget never exceeds the GPU's memory", "[costs][memory]") {
    Project p = manualProject(4, 8, 1, 1, 1);
    p.model = ModelConfig{8, 256, 8, 128, 1000, 2, DType::BF16};
    const double gib = 1024.0 * 1024 * 1024;
    const double peak = reportOf(p, "1f1b").memory.devices[0].peakBytes;
    // A limit above the GPU's memory (120 GiB on an 80 GiB A100) is an 80 GiB budget: a peak
    // between the two does not fit.
    p.cluster.memoryGib = 0.9 * peak / gib;
    p.memory.limitGib = 1.5 * peak / gib;
    ScheduleReport r = reportOf(p, "1f1b");
    CHECK_FALSE(r.memory.fits);
    CHECK(r.memory.limitIsGpuMemory);
    CHECK(r.memory.limitBytes == Approx(p.cluster.memoryGib * gib));
    CHECK(r.memory.overBytes == Approx(0.1 * peak));
    // A limit below the GPU's memory is the budget.
    p.cluster.memoryGib = 2 * peak / gib;
    r = reportOf(p, "1f1b");
    CHECK(r.memory.fits);
    CHECK_FALSE(r.memory.limitIsGpuMemory);
    CHECK(r.memory.limitBytes == Approx(p.memory.limitGib * gib));
    // No limit stays no limit.
    p.memory.limitGib = 0;
    CHECK(reportOf(p, "1f1b").memory.limitBytes == 0);
}

namespace {

/// The zero-bubble paper's models (Table 3): GPT-3-like, seq 1024, fp16 on A100 80 GB nodes of 8.
Project zbModel(int layers, int heads, int hidden, int pp, int mbs, int m) {
    Project p;
    p.model = ModelConfig{layers, hidden, heads, 1024, 51200, mbs, DType::FP16};
    p.cluster = ClusterConfig{"A100-80GB", 8, std::max(1, pp / 8), 312, 80, 2400, 200, 5};
    p.parallel = ParallelConfig{{pp, m, 2}, 1, 1};
    p.memory = MemoryConfig{80, 0, Recompute::None};
    p.costs.mode = CostMode::Analytic;
    return p;
}

double throughput(const Project& p, const char* name, int v = 1) {
    return reportOf(p, name, v).samplesPerSecond;
}

} // namespace

TEST_CASE("Analytic orderings of the zero-bubble paper's setups: ZB ahead of 1F1B", "[costs][papers]") {
    struct Setup {
        int layers, heads, hidden, pp, mbs, m[3];
        double paperMemory1f1b; // GB, Table 4
    };
    const Setup setups[] = {{22, 24, 2304, 8, 6, {24, 32, 64}, 30},
                            {30, 32, 4096, 8, 3, {24, 32, 64}, 39},
                            {46, 40, 5120, 16, 1, {48, 64, 128}, 32},
                            {62, 48, 6144, 32, 1, {96, 128, 256}, 43}};
    for (const Setup& s : setups)
        for (const int m : s.m) {
            INFO(s.layers << " layers, m=" << m);
            const Project p = zbModel(s.layers, s.heads, s.hidden, s.pp, s.mbs, m);
            const double ofob = throughput(p, "1f1b");
            const double h1 = throughput(p, "zb-h1");
            const double h2 = throughput(p, "zb-h2");
            CHECK(h1 > 1.03 * ofob);
            CHECK(h2 >= h1);
            // 1F1B's peak memory lands within 15% of the paper's measurement.
            const ScheduleReport r = reportOf(p, "1f1b");
            CHECK(r.memory.devices[r.memory.worstDevice].peakBytes / 1e9 ==
                  Approx(s.paperMemory1f1b).epsilon(0.15));
            // Throughput grows with m for 1F1B (its bubble shrinks).
            if (m == s.m[2])
                CHECK(ofob > throughput(zbModel(s.layers, s.heads, s.hidden, s.pp, s.mbs, s.m[0]), "1f1b"));
        }
    // 6.2B: 30 layers split into 16 stages, so ZB-V and interleaved (v = 2) fit.
    for (const int m : {24, 32, 64}) {
        INFO("6.2B m=" << m);
        const Project p = zbModel(30, 32, 4096, 8, 3, m);
        const double ofob = throughput(p, "1f1b");
        CHECK(throughput(p, "zb-v") > throughput(p, "zb-h2"));
        CHECK(throughput(p, "zb-h2") > ofob);
        CHECK(throughput(p, "interleaved", 2) > ofob);
    }
}

TEST_CASE("Analytic orderings of BitPipe's GPT setup: BitPipe ahead of Chimera and 1F1B", "[costs][papers]") {
    // The BitPipe repository's GPT example: 96 layers, h 3072, 32 heads, seq 1024, micro-batch 1,
    // pp 8 on one node, fp16, selective recompute; global batch 16 (m = 16).
    Project p;
    p.model = ModelConfig{96, 3072, 32, 1024, 51200, 1, DType::FP16};
    p.cluster = ClusterConfig{"A100-80GB", 8, 1, 312, 80, 2400, 200, 5};
    p.parallel = ParallelConfig{{8, 16, 2}, 1, 1};
    p.memory = MemoryConfig{80, 0, Recompute::Selective};
    p.costs.mode = CostMode::Analytic;
    for (const int m : {8, 16}) {
        INFO("m=" << m);
        p.parallel.microbatches = m;
        const double bitpipe = throughput(p, "bitpipe");
        const double chimera = throughput(p, "chimera");
        const double ofob = throughput(p, "1f1b");
        CHECK(bitpipe > chimera);
        CHECK(chimera > ofob);
        CHECK(throughput(p, "interleaved", 2) > ofob);
        // The paper's range is 1.05x-1.28x over the best synchronous baseline.
        CHECK(bitpipe / std::max(chimera, throughput(p, "interleaved", 2)) > 1.05);
    }
    // Two weight replicas cost memory: BitPipe's static memory is twice 1F1B's.
    p.parallel.microbatches = 16;
    const Prediction bit = predict(p, generateSchedule("bitpipe", {8, 16, 1}));
    const Prediction one = predict(p, generateSchedule("1f1b", {8, 16, 1}));
    CHECK(bit.report.memory.devices[3].staticBytes == Approx(2 * one.report.memory.devices[3].staticBytes));
}

namespace {

/// Iteration time of every schedule a sample lists, under its own (analytic) costs.
std::map<std::string, double> sampleIterations(const std::string& sample) {
    const Project project = readProject(std::filesystem::path(STAGECRAFT_SOURCE_DIR) / "samples" / sample);
    std::map<std::string, double> out;
    for (const std::string& name : project.schedules)
        out[name] = predict(project, generateSchedule(name, scheduleParams(project))).report.iterationUs;
    return out;
}

} // namespace

TEST_CASE("The sample projects reproduce the orderings the README shows", "[costs][papers]") {
    const auto zb62 = sampleIterations("zb-6.2b.stagecraft.json");
    CHECK(zb62.at("zb-v") < zb62.at("zb-h2"));
    CHECK(zb62.at("zb-h2") < zb62.at("zb-h1"));
    CHECK(zb62.at("zb-h1") < zb62.at("interleaved"));
    CHECK(zb62.at("interleaved") < zb62.at("1f1b"));
    for (const char* sample :
         {"zb-1.5b.stagecraft.json", "zb-14.6b.stagecraft.json", "zb-28.3b.stagecraft.json"}) {
        INFO(sample);
        const auto zb = sampleIterations(sample);
        CHECK(zb.at("zb-h1") < zb.at("1f1b"));
        CHECK(zb.at("zb-h2") <= zb.at("zb-h1"));
    }
    for (const char* sample : {"bitpipe-gpt.stagecraft.json", "bitpipe-bert.stagecraft.json"}) {
        INFO(sample);
        const auto bp = sampleIterations(sample);
        CHECK(bp.at("bitpipe") < bp.at("chimera"));
        CHECK(bp.at("bitpipe") < bp.at("interleaved"));
        CHECK(bp.at("chimera") < bp.at("1f1b"));
        CHECK(bp.at("1f1b") == Approx(bp.at("gpipe")));
    }
    const auto bf = sampleIterations("bfpp-6.6b.stagecraft.json");
    CHECK(bf.at("breadth-first") <= bf.at("interleaved"));
    CHECK(bf.at("interleaved") < bf.at("1f1b"));
}
