// Bubble ratios of the specification's table (golden.md §4): simulated under list scheduling
// with costs per full stage, chunk ops scaled by 1/v, and the zero-bubble schedules' backward
// split into B = W = T_B / 2. ZB-H2 and ZB-V use the per-device span (no optimizer flush).
#include "generators/registry.h"
#include "sim/metrics.h"
#include "sim/simulator.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace stagecraft;

namespace {

struct Row {
    int p, m;
    double tb;                                             // T_B / T_F
    double gpipe, ofob, interleaved, bfs, zbh1, zbh2, zbv; // NAN = not defined
};

// clang-format off
const Row kTable[] = {
    {4, 4, 1, 0.4286, 0.4286, 0.2727, 0.2727, 0.2727, NAN, 0.2195},
    {4, 4, 2, 0.4286, 0.4286, 0.2727, 0.2727, 0.2000, NAN, 0.2000},
    {4, 8, 1, 0.2727, 0.2727, 0.1579, 0.1579, 0.1579, 0.0857, 0.0857},
    {4, 8, 2, 0.2727, 0.2727, 0.1579, 0.1579, 0.1111, 0.0000, 0.0000},
    {4, 16, 1, 0.1579, 0.1579, 0.0857, 0.0857, 0.0857, 0.0448, 0.0448},
    {4, 16, 2, 0.1579, 0.1579, 0.0857, 0.0857, 0.0588, 0.0000, 0.0000},
    {8, 8, 1, 0.4667, 0.4667, 0.3043, 0.3043, 0.3043, NAN, 0.2471},
    {8, 8, 2, 0.4667, 0.4667, 0.3043, 0.3043, 0.2258, NAN, 0.2258},
    {8, 16, 1, 0.3043, 0.3043, 0.1795, 0.1795, 0.1795, 0.0986, 0.0986},
    {8, 16, 2, 0.3043, 0.3043, 0.1795, 0.1795, 0.1273, 0.0000, 0.0000},
    {8, 32, 1, 0.1795, 0.1795, 0.0986, 0.0986, 0.0986, 0.0519, 0.0519},
    {8, 32, 2, 0.1795, 0.1795, 0.0986, 0.0986, 0.0680, 0.0000, 0.0000},
};
// clang-format on

TimeMetrics metricsOf(const char* name, int p, int m, int v, double tb, double comm = 0) {
    const Schedule s = generateSchedule(name, {p, m, v});
    const OpCosts costs = fullStageCosts(s, 1.0, tb / 2, tb / 2, comm);
    return computeTimeMetrics(s, simulate(s, costs), &costs);
}

} // namespace

TEST_CASE("Bubble ratios equal the specification's table", "[sim][golden]") {
    for (const Row& row : kTable) {
        INFO("p=" << row.p << " m=" << row.m << " T_B/T_F=" << row.tb);
        CHECK(metricsOf("gpipe", row.p, row.m, 1, row.tb).bubbleRatio == Approx(row.gpipe).margin(5e-5));
        CHECK(metricsOf("1f1b", row.p, row.m, 1, row.tb).bubbleRatio == Approx(row.ofob).margin(5e-5));
        CHECK(metricsOf("interleaved", row.p, row.m, 2, row.tb).bubbleRatio ==
              Approx(row.interleaved).margin(5e-5));
        CHECK(metricsOf("breadth-first", row.p, row.m, 2, row.tb).bubbleRatio ==
              Approx(row.bfs).margin(5e-5));
        CHECK(metricsOf("zb-h1", row.p, row.m, 1, row.tb).bubbleRatio == Approx(row.zbh1).margin(5e-5));
        if (!std::isnan(row.zbh2))
            CHECK(metricsOf("zb-h2", row.p, row.m, 1, row.tb).spanBubbleRatio ==
                  Approx(row.zbh2).margin(5e-5));
        CHECK(metricsOf("zb-v", row.p, row.m, 1, row.tb).spanBubbleRatio == Approx(row.zbv).margin(5e-5));
    }
}

TEST_CASE("Closed forms hold over p, m, v sweeps", "[sim][property]") {
    for (int p = 1; p <= 12; ++p)
        for (int m = 1; m <= 40; ++m) {
            INFO("p=" << p << " m=" << m);
            // GPipe and 1F1B: idle per device (p-1)(T_F+T_B), ratio (p-1)/(m+p-1).
            const double expected = double(p - 1) / double(m + p - 1);
            CHECK(metricsOf("gpipe", p, m, 1, 2).bubbleRatio == Approx(expected).margin(1e-12));
            CHECK(metricsOf("1f1b", p, m, 1, 2).bubbleRatio == Approx(expected).margin(1e-12));
            // ZB-H1: bubble time (p-1)(T_F+T_B-T_W) with T_F = T_B = T_W = 1 (b + w = 2).
            const TimeMetrics h1 = metricsOf("zb-h1", p, m, 1, 2);
            if (m >= p) CHECK(h1.makespan == Approx(3.0 * m + (p - 1) * 1.0));
            for (int v = 2; v <= 4; ++v)
                if (m % p == 0) {
                    // Interleaved: (p-1)/(v·m+p-1); breadth-first the same when m >= p.
                    const double inter = double(p - 1) / double(v * m + p - 1);
                    CHECK(metricsOf("interleaved", p, m, v, 2).bubbleRatio == Approx(inter).margin(1e-12));
                    CHECK(metricsOf("breadth-first", p, m, v, 2).bubbleRatio == Approx(inter).margin(1e-12));
                }
            // ZB-H2 with T_F = T_B = T_W: zero span bubble... when m >= 2p; ZB-V likewise.
            if (m >= 2 * p) CHECK(metricsOf("zb-h2", p, m, 1, 2).spanBubbleRatio == Approx(0).margin(1e-12));
            if (m >= 2 * p) CHECK(metricsOf("zb-v", p, m, 1, 2).spanBubbleRatio == Approx(0).margin(1e-12));
        }
}

TEST_CASE("Communication appears as the closed forms say", "[sim]") {
    const double comm = 0.25;
    for (int p = 2; p <= 8; ++p)
        for (int m : {2 * p, 3 * p, 4 * p}) {
            INFO("p=" << p << " m=" << m);
            // GPipe: (p-1)(T_F + T_B + 2 T_comm) idle per device with a flush.
            const TimeMetrics gpipe = metricsOf("gpipe", p, m, 1, 2, comm);
            CHECK(gpipe.makespan == Approx(3.0 * m + (p - 1) * (3.0 + 2 * comm)));
            // 1F1B pays at least the first micro-batch's round trip through every link.
            CHECK(metricsOf("1f1b", p, m, 1, 2, comm).makespan >=
                  Approx(3.0 * m + (p - 1) * (3.0 + 2 * comm)));
            // ZB-H2 span bubble (p-1)(T_F + T_B + 2 T_comm - 2 T_W) is the ZB code's assertion; with
            // T_F = T_B = T_W it leaves 2(p-1)T_comm of span idle on the stage that waits longest.
            const TimeMetrics h2 = metricsOf("zb-h2", p, m, 1, 2, comm);
            double longest = 0;
            for (const auto& d : h2.devices) longest = std::max(longest, d.span());
            CHECK(longest - 3.0 * m == Approx((p - 1) * (1.0 + 1.0 + 2 * comm - 2 * 1.0)));
        }
}

TEST_CASE("Bubble breakdown accounts for every idle microsecond", "[sim]") {
    for (const char* name : {"gpipe", "1f1b", "zb-h1", "zb-v"}) {
        const Schedule s = generateSchedule(name, {4, 8, 1});
        const double comm = 0.2;
        const OpCosts costs = fullStageCosts(s, 1, 1, 1, comm);
        const TimeMetrics m = computeTimeMetrics(s, simulate(s, costs), &costs);
        for (int d = 0; d < s.devices; ++d) {
            INFO(name << " device " << d);
            const auto& b = m.devices[d].bubbles;
            double waiting = 0;
            for (double w : b.waitingOn) waiting += w;
            CHECK(b.warmup + b.cooldown + b.communication + waiting + b.other == Approx(m.devices[d].idle));
            CHECK(b.waitingOn[d] == 0);
        }
        // The first device's warm-up is empty; the last device waits its turn.
        CHECK(m.devices[0].bubbles.warmup == 0);
        CHECK(m.devices[3].bubbles.warmup == Approx(3 * (s.stageFraction() + comm)));
    }
}
