// zb-v-half and zb-v-min: the V-shaped schedules with controllable memory. Checked against the
// claims of the Controllable-Memory paper (schedules.md §10.7): V-Half holds about half of 1F1B's
// activations for about half of its bubble, V-Min about a third for about two thirds.
#include "generators/generators.h"
#include "generators/registry.h"
#include "sim/memory_model.h"
#include "sim/metrics.h"
#include "sim/simulator.h"
#include "validate/validator.h"

#include <algorithm>
#include <catch2/catch.hpp>

namespace {

using namespace stagecraft;

struct Measured {
    double idle = 0; ///< largest per-device idle time between its first and last op
    double peak = 0; ///< largest per-device activations, in M_a (one full-stage micro-batch)
};

// Unit costs per full stage: each chunk op takes 0.5 and leaves half an M_a behind.
Measured measure(const Schedule& s) {
    OpCosts costs;
    for (auto& d : costs.duration) d.assign(std::size_t(s.stagesPerPipe), 0.5);
    const Timeline timeline = simulate(s, costs);
    const TimeMetrics metrics = computeTimeMetrics(s, timeline, &costs);
    Measured out;
    for (const DeviceMetrics& d : metrics.devices) out.idle = std::max(out.idle, d.span() - d.busy);
    MemoryInputs memory;
    memory.stages.assign(std::size_t(s.stagesPerPipe), StageMemory{0, 0.5, 0.5});
    for (const DeviceMemory& d : computeMemory(s, timeline, memory).devices)
        out.peak = std::max(out.peak, d.peakBytes);
    return out;
}

} // namespace

TEST_CASE("zb-v-half and zb-v-min are valid orders of every op for any p and m", "[zb-v-half][zb-v-min]") {
    for (const char* name : {"zb-v-half", "zb-v-min"})
        for (int p = 1; p <= 10; ++p)
            for (int m : {1, 2, p - 1, p, 2 * p + 1, 3 * p}) {
                if (m < 1) continue;
                INFO(name << " p=" << p << " m=" << m);
                const Schedule s = generateSchedule(name, {p, m, 1});
                CHECK(s.opCount() == std::size_t(6) * std::size_t(p) * std::size_t(m));
                CHECK_NOTHROW(validate(s));
            }
}

TEST_CASE("V-Half: half of 1F1B's activations, bubble at most half of 1F1B's", "[zb-v-half]") {
    for (int p = 2; p <= 16; ++p) {
        const int m = 4 * p;
        INFO("p=" << p << " m=" << m);
        const Measured half = measure(generateSchedule("zb-v-half", {p, m, 1}));
        const double oneFOneBBubble = 3.0 * (p - 1); // (p-1)(T_F+T_B+T_W), unit costs per stage
        CHECK(half.peak <= p / 2.0 + 1 + 1e-9);      // 1F1B holds p M_a on device 0
        CHECK(half.idle <= oneFOneBBubble / 2 + 0.5 + 1e-9);
    }
    // The table of the paper's claim at p = 8: 5 M_a (1F1B: 8) and 8.5 idle (1F1B: 21).
    const Measured at8 = measure(generateSchedule("zb-v-half", {8, 32, 1}));
    CHECK(at8.peak == Approx(5));
    CHECK(at8.idle == Approx(8.5));
}

TEST_CASE("V-Min: a third of 1F1B's activations, bubble at most two thirds of 1F1B's", "[zb-v-min]") {
    for (int p = 2; p <= 16; ++p) {
        const int m = 4 * p;
        INFO("p=" << p << " m=" << m);
        const Measured min = measure(generateSchedule("zb-v-min", {p, m, 1}));
        const double oneFOneBBubble = 3.0 * (p - 1);
        CHECK(min.peak <= p / 3.0 + 2 + 1e-9);
        CHECK(min.idle <= 2 * oneFOneBBubble / 3 + 0.5 + 1e-9);
        // Never more memory than V-Half, less from p = 6 on; never less bubble.
        const Measured half = measure(generateSchedule("zb-v-half", {p, m, 1}));
        CHECK(min.peak <= half.peak);
        if (p >= 6) CHECK(min.peak < half.peak);
        CHECK(min.idle >= half.idle);
    }
    const Measured at24 = measure(generateSchedule("zb-v-min", {24, 96, 1}));
    CHECK(at24.peak == Approx(9));  // 1F1B: 24
    CHECK(at24.idle == Approx(45)); // 1F1B: 69
}

TEST_CASE("The memory of V-Half and V-Min does not grow with the number of micro-batches",
          "[zb-v-half][zb-v-min]") {
    for (const char* name : {"zb-v-half", "zb-v-min"}) {
        const double at32 = measure(generateSchedule(name, {8, 32, 1})).peak;
        CHECK(measure(generateSchedule(name, {8, 256, 1})).peak == Approx(at32));
    }
}
