// The single-direction schedules reproduce the worked examples of the specification exactly:
// per-device op order and every start time under list scheduling, plus makespan, busy time,
// per-device span and peak in-flight activations.
#include "generators/registry.h"
#include "golden_file.h"
#include "golden_support.h"
#include "validate/validator.h"

#include <catch2/catch.hpp>

using namespace stagecraft;
using namespace stagecraft::testing;

namespace {

/// "F0a" / "B1b": chunk 0 = a, chunk 1 = b (interleaved and breadth-first examples).
std::string chunkLetterLabel(const Schedule&, const Op& op) {
    return opKindName(op.kind) + std::to_string(op.mb) + char('a' + op.chunk);
}

/// ZB-V: upper case for chunk 0 (down the V), lower case for chunk 1.
std::string caseByChunkLabel(const Schedule&, const Op& op) {
    std::string kind = opKindName(op.kind);
    if (op.chunk == 1) kind[0] = char(kind[0] - 'A' + 'a');
    return kind + std::to_string(op.mb);
}

void requireGoldenRows(const Schedule& s, const Simulated& sim, const std::string& golden,
                       const Labeler& label) {
    const auto rows = readGoldenRows(golden);
    REQUIRE(int(rows.size()) == s.devices);
    for (const auto& [device, expected] : rows) {
        INFO(golden << " device " << device);
        CHECK(renderDevice(s, sim, device, label) == expected);
    }
}

void requireUniform(const std::vector<double>& values, double expected) {
    for (double v : values) CHECK(v == Approx(expected));
}

} // namespace

TEST_CASE("GPipe p=4 m=8 matches the worked example", "[golden][gpipe]") {
    const Schedule s = generateSchedule("gpipe", {4, 8, 1});
    validate(s);
    const Simulated sim = simulateFullStage(s, 1, 2, 0);
    requireGoldenRows(s, sim, "gpipe_p4_m8", plainLabel);
    CHECK(sim.makespan == 33);
    requireUniform(sim.busy, 24);
    CHECK(sim.span == std::vector<double>{33, 30, 27, 24});
    CHECK(peakActivations(s, 1) == std::vector<double>{8, 8, 8, 8});
}

TEST_CASE("1F1B p=4 m=8 matches the worked example", "[golden][1f1b]") {
    const Schedule s = generateSchedule("1f1b", {4, 8, 1});
    validate(s);
    const Simulated sim = simulateFullStage(s, 1, 2, 0);
    requireGoldenRows(s, sim, "1f1b_p4_m8", plainLabel);
    CHECK(sim.makespan == 33);
    requireUniform(sim.busy, 24);
    CHECK(peakActivations(s, 1) == std::vector<double>{4, 3, 2, 1});
}

TEST_CASE("Interleaved 1F1B p=4 v=2 m=8 matches the worked example", "[golden][interleaved]") {
    const Schedule s = generateSchedule("interleaved", {4, 8, 2});
    validate(s);
    // Per-chunk T_F = 1, T_B = 2 is a full stage of 2 and 4.
    const Simulated sim = simulateFullStage(s, 2, 4, 0);
    requireGoldenRows(s, sim, "interleaved_p4_v2_m8", chunkLetterLabel);
    CHECK(sim.makespan == 57);
    requireUniform(sim.busy, 48);
    CHECK(peakActivations(s, 1) == std::vector<double>{11, 9, 7, 5});
}

TEST_CASE("Breadth-first p=4 v=2 m=8 matches the worked example", "[golden][breadth-first]") {
    const Schedule s = generateSchedule("breadth-first", {4, 8, 2});
    validate(s);
    const Simulated sim = simulateFullStage(s, 2, 4, 0);
    requireGoldenRows(s, sim, "breadth-first_p4_v2_m8", chunkLetterLabel);
    CHECK(sim.makespan == 57);
    CHECK(peakActivations(s, 1) == std::vector<double>{16, 16, 16, 16});
}

TEST_CASE("Interleaved with m == p is exactly the breadth-first order", "[golden][interleaved]") {
    const Schedule a = generateSchedule("interleaved", {4, 4, 2});
    const Schedule b = generateSchedule("breadth-first", {4, 4, 2});
    CHECK(a.order == b.order);
}

TEST_CASE("ZB-H1 p=4 m=8 matches the worked example", "[golden][zb-h1]") {
    const Schedule s = generateSchedule("zb-h1", {4, 8, 1});
    validate(s);
    const Simulated sim = simulateFullStage(s, 1, 1, 1);
    requireGoldenRows(s, sim, "zb-h1_p4_m8", plainLabel);
    CHECK(sim.makespan == 27);
    requireUniform(sim.busy, 24);
    CHECK(sim.span == std::vector<double>{27, 26, 25, 24});
    CHECK(peakActivations(s, 1) == std::vector<double>{4, 4, 4, 4});
}

TEST_CASE("ZB-H2 p=4 m=8 matches the worked example", "[golden][zb-h2]") {
    const Schedule s = generateSchedule("zb-h2", {4, 8, 1});
    validate(s);
    const Simulated sim = simulateFullStage(s, 1, 1, 1);
    requireGoldenRows(s, sim, "zb-h2_p4_m8", plainLabel);
    CHECK(sim.makespan == 27);
    requireUniform(sim.span, 24);
    CHECK(peakActivations(s, 1) == std::vector<double>{7, 7, 7, 7});
}

TEST_CASE("ZB-V p=4 m=8 matches the worked example", "[golden][zb-v]") {
    const Schedule s = generateSchedule("zb-v", {4, 8, 1});
    validate(s);
    // Per-chunk T_F = T_B = T_W = 1; a chunk is half a stage.
    const Simulated sim = simulateFullStage(s, 2, 2, 2);
    requireGoldenRows(s, sim, "zb-v_p4_m8", caseByChunkLabel);
    CHECK(sim.makespan == 51);
    requireUniform(sim.busy, 48);
    requireUniform(sim.span, 48);
    CHECK(peakActivations(s, 1) == std::vector<double>{8, 8, 8, 8});
}

TEST_CASE("Warm-up counts match the specification's invariants", "[golden]") {
    auto leadingForwards = [](const Schedule& s, int d) {
        int n = 0;
        for (const Op& op : s.order[d]) {
            if (op.kind != OpKind::F) break;
            ++n;
        }
        return n;
    };
    const Schedule ofob = generateSchedule("1f1b", {4, 8, 1});
    const Schedule inter = generateSchedule("interleaved", {4, 8, 2});
    const Schedule zbv = generateSchedule("zb-v", {4, 8, 1});
    const Schedule zbh2 = generateSchedule("zb-h2", {4, 8, 1});
    // 1F1B warm-up 3,2,1,0 then the first steady forward: leading forwards 4,3,2,1.
    for (int r = 0; r < 4; ++r) CHECK(leadingForwards(ofob, r) == 4 - r);
    // Interleaved warm-up 10,8,6,4 plus the first steady forward.
    for (int r = 0; r < 4; ++r) CHECK(leadingForwards(inter, r) == 11 - 2 * r);
    // ZB-V: 2p-1 warm-up forwards, the first B after 2p forwards.
    for (int r = 0; r < 4; ++r) CHECK(leadingForwards(zbv, r) == 8);
    // ZB-H2: 2(p-r-1) warm-up forwards + 1 steady forward before the first B.
    for (int r = 0; r < 4; ++r) CHECK(leadingForwards(zbh2, r) == 2 * (4 - r - 1) + 1);
}

TEST_CASE("Hanayo p=4 one wave m=4 matches the worked example of elf's order", "[golden][hanayo]") {
    const Schedule s = generateSchedule("hanayo", {4, 4, 2});
    validate(s);
    // Per-chunk F = 1, B = 2; a chunk is half a stage.
    const Simulated sim = simulateFullStage(s, 2, 4, 0);
    requireGoldenRows(s, sim, "hanayo_p4_w1_m4", caseByChunkLabel);
    CHECK(sim.makespan == 36);
    requireUniform(sim.busy, 24);
    CHECK(peakActivations(s, 1) == std::vector<double>{5, 6, 7, 8});
}

TEST_CASE("Hanayo's makespans and idle time follow the worked cases", "[golden][hanayo]") {
    // (waves, m, per-chunk F, per-chunk B) -> makespan, from the reference notes' simulations.
    struct Case {
        int waves, m;
        double f, b, makespan, idle;
    };
    for (const Case& c : {Case{1, 8, 1, 2, 60, 12}, Case{2, 4, 1, 2, 60, 12}, Case{2, 8, 1, 2, 108, 12},
                          Case{1, 4, 1, 1, 22, 6}, Case{1, 8, 1, 1, 38, 6}, Case{2, 8, 1, 1, 70, 6}}) {
        INFO("waves " << c.waves << " m " << c.m << " F " << c.f << " B " << c.b);
        const Schedule s = generateSchedule("hanayo", {4, c.m, 2 * c.waves});
        validate(s);
        // A chunk is 1 / (2 waves) of a stage.
        const Simulated sim = simulateFullStage(s, 2 * c.waves * c.f, 2 * c.waves * c.b, 0);
        CHECK(sim.makespan == Approx(c.makespan));
        for (const double busy : sim.busy) CHECK(sim.makespan - busy == Approx(c.idle));
        // F and B of every chunk a device holds, per micro-batch (the notes' invariant).
        for (const auto& order : s.order) CHECK(order.size() == std::size_t(2 * 2 * c.waves * c.m));
    }
}

TEST_CASE("V-1F1B p=4 m=8 matches the worked example of the zero-bubble code's order", "[golden][v-1f1b]") {
    const Schedule s = generateSchedule("v-1f1b", {4, 8, 1});
    validate(s);
    CHECK_FALSE(s.splitBackward);
    // Per-chunk F = 1 and whole backward 2; a chunk is half a stage.
    const Simulated sim = simulateFullStage(s, 2, 4, 0);
    requireGoldenRows(s, sim, "v-1f1b_p4_m8", caseByChunkLabel);
    CHECK(sim.makespan == 63);
    CHECK(sim.span == std::vector<double>{63, 60, 57, 54});
    for (const double busy : sim.busy) CHECK(sim.makespan - busy == 15);
    CHECK(peakActivations(s, 1) == std::vector<double>{6, 6, 6, 6});
}

TEST_CASE("V-1F1B keeps its idle time as m grows and its peak at the notes' values", "[golden][v-1f1b]") {
    // (p, m) -> idle per device and peak chunk activations (reference notes' simulations, per-chunk
    // F = 1, B = 2), and the makespans the zero-bubble code's own timing gives.
    struct Case {
        int p, m;
        double idle, peak, makespan;
    };
    for (const Case& c :
         {Case{2, 4, 4, 4, 0}, Case{4, 4, 15, 6, 39}, Case{4, 12, 15, 6, 0}, Case{4, 16, 15, 6, 0},
          Case{6, 12, 22, 10, 0}, Case{8, 16, 33, 12, 129}, Case{8, 32, 33, 12, 0}}) {
        INFO("p " << c.p << " m " << c.m);
        const Schedule s = generateSchedule("v-1f1b", {c.p, c.m, 1});
        validate(s);
        const Simulated sim = simulateFullStage(s, 2, 4, 0);
        for (const double busy : sim.busy) CHECK(sim.makespan - busy == Approx(c.idle));
        if (c.makespan > 0) CHECK(sim.makespan == Approx(c.makespan));
        const std::vector<double> peaks = peakActivations(s, 1);
        CHECK(*std::max_element(peaks.begin(), peaks.end()) == c.peak);
        for (const auto& order : s.order) CHECK(order.size() == std::size_t(4 * c.m)); // 2m F, 2m B
    }
}
