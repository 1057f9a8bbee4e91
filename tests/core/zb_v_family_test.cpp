// zb-v for unequal costs: the handcrafted order under equal costs, otherwise a searched order within
// ZB-V's memory that is valid and never slower than the handcrafted one.
#include "generators/generators.h"
#include "generators/registry.h"
#include "generators/zb_greedy.h"
#include "generators/zb_v_heuristic.h"
#include "sim/list_scheduler.h"
#include "sim/memory_model.h"
#include "sim/metrics.h"
#include "sim/simulator.h"
#include "validate/validator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

namespace {

using namespace stagecraft;

struct Measured {
    double span = 0, makespan = 0, busy = 0, peak = 0;
    double rate() const { return (span - busy) / span; }
};

// Chunk costs from the request (unit: half a stage each), activations half an M_a per chunk.
Measured measure(const Schedule& s, const GenerateRequest& r) {
    OpCosts costs;
    for (auto& d : costs.duration) d.assign(std::size_t(s.stagesPerPipe), 0.0);
    for (int st = 0; st < s.stagesPerPipe; ++st) {
        const StageCost c = r.stageCosts.empty() ? StageCost{0.5, 0.5, 0.5} : r.cost(st);
        costs.duration[int(OpKind::F)][std::size_t(st)] = c.f;
        costs.duration[int(OpKind::B)][std::size_t(st)] = c.b;
        costs.duration[int(OpKind::W)][std::size_t(st)] = c.w;
    }
    costs.comm = r.comm;
    const Timeline timeline = simulate(s, costs);
    const TimeMetrics metrics = computeTimeMetrics(s, timeline, &costs);
    Measured out;
    out.makespan = metrics.makespan;
    for (const DeviceMetrics& d : metrics.devices) {
        out.span = std::max(out.span, d.span());
        out.busy = std::max(out.busy, d.busy);
    }
    MemoryInputs memory;
    memory.stages.assign(std::size_t(s.stagesPerPipe), StageMemory{0, 0.5, 0.5 * r.keptForW});
    const MemoryReport report = computeMemory(s, timeline, memory);
    for (const DeviceMemory& d : report.devices) out.peak = std::max(out.peak, d.peakBytes);
    return out;
}

GenerateRequest chunkRequest(int p, int m, double f, double b, double w, double comm) {
    GenerateRequest r;
    r.params = {p, m, 1};
    r.stageCosts.assign(std::size_t(2 * p), StageCost{f, b, w});
    r.comm = comm;
    return r;
}

} // namespace

TEST_CASE("zb-v under equal costs is the handcrafted order (its goldens hold)", "[zb-v]") {
    for (int p : {2, 4, 5})
        for (int m : {3, 8, 12}) {
            const ScheduleParams params{p, m, 1};
            CHECK(generateSchedule("zb-v", params) == gen::zbV(params));
            CHECK(generateSchedule(findGenerator("zb-v"), chunkRequest(p, m, 0.5, 0.5, 0.5, 0)) ==
                  gen::zbV(params));
        }
}

TEST_CASE("zb-v with F = B = 2, W = 1 per chunk", "[zb-v]") {
    // golden.md 2.2: the paper's ZB-V heuristic (p = 4, m = 8, F = B = 2, W = 1) has a largest
    // per-device bubble of 5 over an expected 80 (span 85). The handcrafted order and the greedy
    // search reach 86; our port of the heuristic (zb_v_heuristic.h) reaches the paper's 85.
    const GenerateRequest r = chunkRequest(4, 8, 2, 2, 1, 0);
    const Schedule s = generateSchedule(findGenerator("zb-v"), r);
    validate(s);
    const Measured got = measure(s, r);
    INFO(s.notes);
    CHECK(got.busy == 80);
    CHECK(got.span == Approx(85));
    const Schedule shape = makeSchedule("zb-v", 4, 8, {vShapePlacement(4)}, true);
    const std::vector<Schedule> heuristic = zb::zbVHeuristic(zb::pipeOf(r, shape.placement[0], 4), shape);
    REQUIRE(!heuristic.empty());
    double bestHeuristic = 1e300;
    for (const Schedule& h : heuristic) {
        validate(h);
        bestHeuristic = std::min(bestHeuristic, measure(h, r).span);
    }
    CHECK(bestHeuristic == Approx(85));
    CHECK(got.peak <= 4 + 1e-9); // p M_B = 2p chunk activations
    const Measured hand = measure(gen::zbV({4, 8, 1}), r);
    CHECK(got.span <= hand.span);
    CHECK(got.makespan <= hand.makespan);
}

TEST_CASE("zb-v with random costs is never slower than the handcrafted order", "[zb-v][property]") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> cost(0.3, 1.5), comm(0.0, 0.2);
    for (int trial = 0; trial < 30; ++trial) {
        const int p = 1 + int(rng() % 6), m = 1 + int(rng() % (3 * p));
        GenerateRequest r;
        r.params = {p, m, 1};
        for (int s = 0; s < 2 * p; ++s) r.stageCosts.push_back({cost(rng), cost(rng), cost(rng)});
        r.comm = comm(rng);
        const Schedule s = generateSchedule(findGenerator("zb-v"), r);
        INFO("trial " << trial << " p=" << p << " m=" << m << ": " << s.notes);
        validate(s);
        const Measured got = measure(s, r), hand = measure(gen::zbV(r.params), r);
        CHECK(got.span <= hand.span + 1e-9);
        CHECK(got.makespan <= hand.makespan + 1e-9);
        CHECK(got.peak <= p + 1e-9);
    }
}

TEST_CASE("zb-v is never slower than the paper's ZB-V heuristic, whose orders are valid",
          "[zb-v][property]") {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> cost(0.3, 1.5), comm(0.0, 0.2);
    int heuristicOrders = 0;
    for (int trial = 0; trial < 30; ++trial) {
        const int p = 2 + int(rng() % 5), m = p + int(rng() % (3 * p));
        GenerateRequest r;
        r.params = {p, m, 1};
        for (int s = 0; s < 2 * p; ++s) r.stageCosts.push_back({cost(rng), cost(rng), cost(rng)});
        r.comm = comm(rng);
        const Schedule shape = makeSchedule("zb-v", p, m, {vShapePlacement(p)}, true);
        const Schedule got = generateSchedule(findGenerator("zb-v"), r);
        const Measured zbv = measure(got, r);
        INFO("trial " << trial << " p=" << p << " m=" << m << ": " << got.notes);
        for (const Schedule& h : zb::zbVHeuristic(zb::pipeOf(r, shape.placement[0], p), shape)) {
            ++heuristicOrders;
            validate(h);
            const Measured heuristic = measure(h, r);
            CHECK(heuristic.peak <= p + 1e-9);
            // A seed is taken only within the handcrafted order's makespan; in span zb-v wins
            // or ties whenever the heuristic's order is also within it.
            const Measured hand = measure(gen::zbV(r.params), r);
            if (heuristic.makespan <= hand.makespan + 1e-9) CHECK(zbv.span <= heuristic.span + 1e-9);
        }
    }
    CHECK(heuristicOrders >= 20); // the heuristic completes on most of these pipes (25 orders here)
}

TEST_CASE("zb-v under post-validation reaches the paper's ZB-V bubble rates at p = 16", "[zb-v]") {
    // The ZB paper's ZB-V setting for its 6.2B model on 16 GPUs (the per-chunk profiled times of
    // efficiency.py's ZB-V table on the authors' arxiv branch, µs), activation memory p M_B. Its
    // heuristic (v_schedule.py, run on those settings) gives the rates below; our port reproduces
    // them. The handcrafted order's span is about 2 % higher (0.0712 / 0.0545 / 0.0280) but its
    // makespan is shorter, so under a flush zb-v keeps it; under post-validation only the span
    // counts and zb-v takes the heuristic's order (issue 28).
    struct Row {
        int m;
        double f, b, w, comm, paper;
    };
    const double rho = 32 * 4096.0 / (34 * 4096.0 + 5 * 32 * 1024); // M_W / M_B, h = 4096, a = 32
    for (const Row& row :
         {Row{48, 14407, 14380, 9676, 1610, 0.0697}, Row{64, 14412, 14393, 9688, 1621, 0.0533},
          Row{128, 14316, 14306, 9639, 1619, 0.0274}}) {
        GenerateRequest r = chunkRequest(16, row.m, row.f, row.b, row.w, row.comm);
        r.keptForW = rho;
        const Measured hand = measure(gen::zbV(r.params), r);
        r.postValidation = true;
        const Schedule post = generateSchedule(findGenerator("zb-v"), r);
        validate(post);
        const Measured got = measure(post, r);
        INFO("m=" << row.m << " rate " << got.rate() << " handcrafted " << hand.rate() << ": " << post.notes);
        CHECK(got.rate() < row.paper + 5e-5);
        CHECK(got.peak <= 16 + 1e-9);
        CHECK(got.span <= hand.span);
        // Under a flush the makespan stays the handcrafted order's or shorter.
        r.postValidation = false;
        const Measured flush = measure(generateSchedule(findGenerator("zb-v"), r), r);
        CHECK(flush.makespan <= hand.makespan + 1e-9);
        CHECK(flush.span <= hand.span + 1e-9);
    }
}
