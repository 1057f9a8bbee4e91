// Memory curves: in the papers' units the peaks equal the specification's in-flight counts;
// static memory adds per stage replica; the limit check reports the worst device and the excess.
#include "generators/registry.h"
#include "sim/memory_model.h"
#include "sim/simulator.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

std::vector<double> unitPeaks(const char* name, ScheduleParams params, double scale = 1.0) {
    const Schedule s = generateSchedule(name, params);
    const MemoryReport report =
        computeMemory(s, simulate(s, fullStageCosts(s, 1, 1, 1)), unitMemoryInputs(s));
    std::vector<double> peaks;
    for (const auto& d : report.devices) peaks.push_back(d.peakBytes * scale);
    return peaks;
}

} // namespace

TEST_CASE("Peak activations in M_a units equal the specification", "[memory]") {
    CHECK(unitPeaks("gpipe", {4, 8, 1}) == std::vector<double>{8, 8, 8, 8});
    CHECK(unitPeaks("1f1b", {4, 8, 1}) == std::vector<double>{4, 3, 2, 1});
    CHECK(unitPeaks("zb-h1", {4, 8, 1}) == std::vector<double>{4, 4, 4, 4});
    CHECK(unitPeaks("zb-h2", {4, 8, 1}) == std::vector<double>{7, 7, 7, 7});
    // Interleaved and ZB-V counted in chunk activations (a chunk is 1/2 stage): x2.
    CHECK(unitPeaks("interleaved", {4, 8, 2}, 2) == std::vector<double>{11, 9, 7, 5});
    CHECK(unitPeaks("zb-v", {4, 8, 1}, 2) == std::vector<double>{8, 8, 8, 8});
    CHECK(unitPeaks("breadth-first", {4, 8, 2}, 2) == std::vector<double>{16, 16, 16, 16});
}

TEST_CASE("Closed-form peaks over sweeps", "[memory][property]") {
    for (int p = 1; p <= 10; ++p)
        for (int m = 1; m <= 30; ++m) {
            INFO("p=" << p << " m=" << m);
            const auto ofob = unitPeaks("1f1b", {p, m, 1});
            const auto gpipe = unitPeaks("gpipe", {p, m, 1});
            for (int r = 0; r < p; ++r) {
                CHECK(ofob[r] == std::min(p - r, m)); // device r keeps min(p - r, m) micro-batches
                CHECK(gpipe[r] == m);
            }
            if (m >= 2 * p) {
                const auto h2 = unitPeaks("zb-h2", {p, m, 1});
                for (double peak : h2) CHECK(peak == 2 * p - 1); // (2p-1) M_B
            }
        }
}

TEST_CASE("Static memory and the limit check", "[memory]") {
    const Schedule s = generateSchedule("1f1b", {4, 8, 1});
    MemoryInputs inputs;
    inputs.stages.assign(4, StageMemory{10.0, 2.0, 0.0});
    inputs.limitBytes = 15.0;
    const MemoryReport report = computeMemory(s, simulate(s, fullStageCosts(s, 1, 2, 0)), inputs);
    CHECK(report.devices[0].staticBytes == 10);
    CHECK(report.devices[0].peakBytes == 18); // 10 + 4 micro-batches x 2
    CHECK(report.devices[3].peakBytes == 12);
    CHECK_FALSE(report.fits);
    CHECK(report.worstDevice == 0);
    CHECK(report.overBytes == 3);
    // The curve starts at the static memory and ends there once every backward has run.
    CHECK(report.devices[1].curve.front().second == 10);
    CHECK(report.devices[1].curve.back().second == 10);
}

TEST_CASE("Memory inputs must match the schedule", "[memory]") {
    const Schedule s = generateSchedule("zb-v", {4, 8, 1});
    MemoryInputs inputs;
    inputs.stages.resize(3);
    CHECK_THROWS_WITH(computeMemory(s, simulate(s, fullStageCosts(s, 1, 1, 1)), inputs),
                      "[memory.inputs] memory inputs describe 3 stage replicas, schedule 'zb-v' has 8");
}
