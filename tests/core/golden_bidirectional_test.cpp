// The bidirectional schedules (Chimera, BitPipe) reproduce the worked examples of the
// specification exactly: per-device op order (with the eager gradient-sync slots) and every start
// time under list scheduling, makespan, busy time, span, peak in-flight activations and the
// bubble-ratio table; plus a property sweep over p and m and the rejection of bad parameters.
#include "error.h"
#include "generators/registry.h"
#include "golden_file.h"
#include "golden_support.h"
#include "ir/op_name.h"
#include "validate/validator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>

using namespace stagecraft;
using namespace stagecraft::testing;

namespace {

std::string prime(const Op& op) {
    return op.pipe == 1 ? "'" : "";
}

/// Chimera: "F0", "B2'" (primed = up pipe, pipe 1); a gradient sync is the grid's "S".
std::string chimeraLabel(const Schedule&, const Op& op) {
    if (op.kind == OpKind::GradSync) return "S";
    return opKindName(op.kind) + std::to_string(op.mb) + prime(op);
}

/// Upper case on the first leg of BitPipe's V (chunks vr0, vr1), lower case on the second.
std::string legCasedKind(const Op& op) {
    std::string kind = opKindName(op.kind);
    if (op.chunk >= 2) kind[0] = char(kind[0] - 'A' + 'a');
    return kind;
}

/// BitPipe in the paper figure's notation: "F1", "f3'", "B4'" (micro-batches from 1).
std::string bitpipeLabel(const Schedule&, const Op& op) {
    return legCasedKind(op) + std::to_string(op.mb + 1) + prime(op);
}

/// BitPipe in the reference code's notation: "F1d", "b3u". One SYNC of the code all-reduces two
/// chunks (vr2 + vr3, then vr0 + vr1): the first GradSync of the pair prints "SYNC", the second
/// nothing (the warm-up and sync test checks that they do come in those pairs).
std::string bitpipeCodeLabel(const Schedule&, const Op& op) {
    if (op.kind == OpKind::GradSync) return op.chunk % 2 == 0 ? "SYNC" : "";
    return legCasedKind(op) + std::to_string(op.mb + 1) + (op.pipe == 1 ? "u" : "d");
}

/// Every op of a device in order, sync ops included, without times; empty labels are skipped.
std::string renderOrder(const Schedule& s, int d, const Labeler& label) {
    std::string text;
    for (const Op& op : s.order[d]) {
        const std::string token = label(s, op);
        if (token.empty()) continue;
        text += (text.empty() ? "" : " ") + token;
    }
    return text;
}

/// A golden grid row without its idle steps ("."): the order the device runs.
std::string withoutIdle(const std::string& row) {
    std::istringstream in(row);
    std::string text;
    for (std::string token; in >> token;)
        if (token != ".") text += (text.empty() ? "" : " ") + token;
    return text;
}

Schedule withoutSyncs(Schedule s) {
    for (auto& ops : s.order) std::erase_if(ops, [](const Op& op) { return op.kind == OpKind::GradSync; });
    return s;
}

/// The golden timelines were computed with the SYNC ops dropped. The schedule with its syncs
/// must validate and run to completion, and zero-cost syncs (posted asynchronously) must not move
/// any compute op; the timing is then read from the sync-free copy so indices match the rows.
struct Timed {
    Schedule plain;
    Simulated sim;
};

Timed simulateWithoutSyncs(const Schedule& s, double f, double b) {
    validate(s);
    const Simulated withSyncs = simulateFullStage(s, f, b, 0);
    REQUIRE(withSyncs.run.complete());
    Timed out{withoutSyncs(s), {}};
    out.sim = simulateFullStage(out.plain, f, b, 0);
    REQUIRE(out.sim.run.complete());
    for (int d = 0; d < s.devices; ++d) {
        int plainIndex = 0;
        for (int i = 0; i < int(s.order[d].size()); ++i) {
            if (s.order[d][i].kind == OpKind::GradSync) continue;
            INFO("device " << d << " op " << opName(s.order[d][i], s.splitBackward));
            CHECK(withSyncs.run.time(d, i).start == out.sim.run.time(d, plainIndex++).start);
        }
    }
    return out;
}

void requireGoldenRows(const Timed& t, const std::string& golden, const Labeler& label) {
    const auto rows = readGoldenRows(golden);
    REQUIRE(int(rows.size()) == t.plain.devices);
    for (const auto& [device, expected] : rows) {
        INFO(golden << " device " << device);
        CHECK(renderDevice(t.plain, t.sim, device, label) == expected);
    }
}

void requireGoldenOrder(const Schedule& s, const std::string& golden, const Labeler& label) {
    const auto rows = readGoldenRows(golden);
    REQUIRE(int(rows.size()) == s.devices);
    for (const auto& [device, expected] : rows) {
        INFO(golden << " device " << device);
        CHECK(renderOrder(s, device, label) == withoutIdle(expected));
    }
}

void requireUniform(const std::vector<double>& values, double expected) {
    for (double v : values) CHECK(v == Approx(expected));
}

int leadingForwards(const Schedule& s, int d) {
    int n = 0;
    for (const Op& op : s.order[d]) {
        if (op.kind != OpKind::F) break;
        ++n;
    }
    return n;
}

/// Bubble ratio (makespan - busy) / makespan of every device, T_F = 1 per full stage.
std::vector<double> bubbleRatios(const char* name, int p, int m, double tb) {
    const Timed t = simulateWithoutSyncs(generateSchedule(name, {p, m, 1}), 1, tb);
    std::vector<double> ratios;
    for (double busy : t.sim.busy) ratios.push_back((t.sim.makespan - busy) / t.sim.makespan);
    return ratios;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Chimera

TEST_CASE("Chimera D=4 N=4 (T_F=T_B=1) matches the worked example", "[golden][chimera]") {
    const Timed t = simulateWithoutSyncs(generateSchedule("chimera", {4, 4, 1}), 1, 1);
    requireGoldenRows(t, "chimera_p4_m4_fb11", chimeraLabel);
    CHECK(t.sim.makespan == 10);
    requireUniform(t.sim.busy, 8);
    CHECK(t.sim.span == std::vector<double>{10, 8, 8, 10});
    CHECK(peakActivations(t.plain, 1) == std::vector<double>{3, 4, 4, 3});
}

TEST_CASE("Chimera D=4 N=4 (T_F=1, T_B=2) matches the worked example", "[golden][chimera]") {
    const Timed t = simulateWithoutSyncs(generateSchedule("chimera", {4, 4, 1}), 1, 2);
    requireGoldenRows(t, "chimera_p4_m4_fb12", chimeraLabel);
    CHECK(t.sim.makespan == 16);
    requireUniform(t.sim.busy, 12);
    CHECK(t.sim.span == std::vector<double>{16, 13, 13, 16});
    CHECK(peakActivations(t.plain, 1) == std::vector<double>{3, 4, 4, 3});
}

TEST_CASE("Chimera D=4 N=4 places the eager syncs in the generator grid's S slots", "[golden][chimera]") {
    const Schedule s = generateSchedule("chimera", {4, 4, 1});
    requireGoldenOrder(s, "chimera_p4_m4_grid", chimeraLabel);
    // Each device syncs both of its replicas: down stage d with device p-1-d's up stage d.
    for (int d = 0; d < 4; ++d) {
        std::vector<std::pair<int, int>> syncs; // (pipe, stage)
        for (const Op& op : s.order[d])
            if (op.kind == OpKind::GradSync) syncs.emplace_back(op.pipe, op.stage);
        std::sort(syncs.begin(), syncs.end());
        CHECK(syncs == std::vector<std::pair<int, int>>{{0, d}, {1, 3 - d}});
    }
}

TEST_CASE("Chimera D=4 N=8 concatenates two basic units as the generator does", "[golden][chimera]") {
    const Schedule s = generateSchedule("chimera", {4, 8, 1});
    requireGoldenOrder(withoutSyncs(s), "chimera_p4_m8_order", chimeraLabel);
    const Timed equal = simulateWithoutSyncs(s, 1, 1);
    CHECK(equal.sim.makespan == 18);
    requireUniform(equal.sim.busy, 16); // idle 2 per device
    const Timed slowBackward = simulateWithoutSyncs(s, 1, 2);
    CHECK(slowBackward.sim.makespan == 30);
    requireUniform(slowBackward.sim.busy, 24); // idle 6 per device
}

TEST_CASE("Chimera D=8 N=8 matches the generator order", "[golden][chimera]") {
    const Schedule s = generateSchedule("chimera", {8, 8, 1});
    requireGoldenOrder(withoutSyncs(s), "chimera_p8_m8_order", chimeraLabel);
    const Timed t = simulateWithoutSyncs(s, 1, 1);
    CHECK(t.sim.makespan == 22);
    requireUniform(t.sim.busy, 16); // idle 6 = D - 2
    CHECK(peakActivations(s, 1) == std::vector<double>{5, 6, 7, 8, 8, 7, 6, 5});
}

TEST_CASE("Chimera peak activations stay in [(D/2 + 1), D] M_a, independent of N", "[chimera][property]") {
    for (int p : {2, 4, 8, 16}) {
        const std::vector<double> base = peakActivations(generateSchedule("chimera", {p, p, 1}), 1);
        CHECK(*std::min_element(base.begin(), base.end()) == 0.5 * p + 1); // p is even
        CHECK(*std::max_element(base.begin(), base.end()) == p);
        for (int m = 2 * p; m <= 4 * p; m += p) {
            INFO("p=" << p << " m=" << m);
            CHECK(peakActivations(generateSchedule("chimera", {p, m, 1}), 1) == base);
        }
    }
}

TEST_CASE("Chimera with T_F = T_B has bubble ratio (D-2)/(2N+D-2) for every N multiple of D",
          "[chimera][property]") {
    // Includes D = 8, N = 24 and 32, where the public generator drops passes.
    for (int p = 2; p <= 16; p += 2)
        for (int m = p; m <= 64; m += p) {
            INFO("p=" << p << " m=" << m);
            const double expected = double(p - 2) / double(2 * m + p - 2);
            for (double ratio : bubbleRatios("chimera", p, m, 1))
                CHECK(ratio == Approx(expected).margin(1e-12));
        }
}

// ---------------------------------------------------------------------------------------------
// BitPipe

TEST_CASE("BitPipe D=4 N=4 matches the code order and its ASAP replay", "[golden][bitpipe]") {
    const Schedule s = generateSchedule("bitpipe", {4, 4, 1});
    requireGoldenOrder(s, "bitpipe_p4_m4_code", bitpipeCodeLabel);
    // Per-chunk T_F = 1, T_B = 2; a chunk is half a stage.
    const Timed t = simulateWithoutSyncs(s, 2, 4);
    requireGoldenRows(t, "bitpipe_p4_m4", bitpipeLabel);
    CHECK(t.sim.makespan == 28);
    requireUniform(t.sim.busy, 24);
    CHECK(t.sim.span == std::vector<double>{28, 25, 25, 28});
    // Memory unit M_a = one full stage; a chunk's activation is half of it.
    CHECK(peakActivations(s, 0.5) == std::vector<double>{3.5, 4, 4, 3.5});
}

TEST_CASE("BitPipe D=4 N=8 matches the code order (direct concatenation)", "[golden][bitpipe]") {
    const Timed t = simulateWithoutSyncs(generateSchedule("bitpipe", {4, 8, 1}), 2, 4);
    requireGoldenRows(t, "bitpipe_p4_m8", bitpipeLabel);
    CHECK(t.sim.makespan == 54);
    requireUniform(t.sim.busy, 48);
    CHECK(t.sim.span == std::vector<double>{54, 51, 51, 54});
    CHECK(peakActivations(t.plain, 0.5) == std::vector<double>{3.5, 4, 4, 3.5});
}

TEST_CASE("BitPipe D=8 N=8 matches the code order", "[golden][bitpipe]") {
    const Schedule s = generateSchedule("bitpipe", {8, 8, 1});
    validate(s);
    requireGoldenOrder(s, "bitpipe_p8_m8_code", bitpipeCodeLabel);
}

TEST_CASE("BitPipe warm-up counts and eager sync placement follow the code", "[golden][bitpipe]") {
    for (int p : {2, 4, 8, 16})
        for (int m : {p, 2 * p, 3 * p}) {
            const Schedule s = generateSchedule("bitpipe", {p, m, 1});
            for (int r = 0; r < p; ++r) {
                INFO("p=" << p << " m=" << m << " rank " << r);
                // w_r = p + p/2 + min(r, p-1-r) warm-up forwards, then the first 1F1B forward.
                CHECK(leadingForwards(s, r) == p + p / 2 + std::min(r, p - 1 - r) + 1);
                // The order ends "... SYNC(vr2, vr3) [B] SYNC(vr0, vr1)": one B between the two
                // syncs on every rank but the two middle ones.
                const auto& ops = s.order[r];
                REQUIRE(ops.size() >= 5);
                const bool middle = r == p / 2 - 1 || r == p / 2;
                const std::size_t first = ops.size() - (middle ? 4 : 5);
                std::vector<int> chunks;
                for (std::size_t i = first; i < ops.size(); ++i)
                    if (ops[i].kind == OpKind::GradSync) chunks.push_back(ops[i].chunk);
                CHECK(chunks == std::vector<int>{2, 3, 0, 1});
                if (!middle) CHECK(ops[first + 2].kind == OpKind::B);
            }
        }
    // Paper invariant (golden §6): warm-up 6,7,7,6 for p = 4 and 12..15..12 for p = 8.
    const Schedule p8 = generateSchedule("bitpipe", {8, 8, 1});
    const int warm8[] = {12, 13, 14, 15, 15, 14, 13, 12};
    for (int r = 0; r < 8; ++r) CHECK(leadingForwards(p8, r) == warm8[r] + 1);
}

TEST_CASE("BitPipe peak activations stay in [(3D/4 + 1/2), D] M_a, independent of N", "[bitpipe][property]") {
    for (int p : {4, 8, 16}) {
        const std::vector<double> base = peakActivations(generateSchedule("bitpipe", {p, p, 1}), 0.5);
        CHECK(*std::min_element(base.begin(), base.end()) == Approx(0.75 * p + 0.5));
        CHECK(*std::max_element(base.begin(), base.end()) == Approx(p));
        for (int m = 2 * p; m <= 4 * p; m += p) {
            INFO("p=" << p << " m=" << m);
            CHECK(peakActivations(generateSchedule("bitpipe", {p, m, 1}), 0.5) == base);
        }
    }
}

TEST_CASE("BitPipe with T_F = T_B has bubble ratio (D-2)/(4N+D-2)", "[bitpipe][property]") {
    for (int p = 2; p <= 16; p += 2)
        for (int m = p; m <= 64; m += p) {
            INFO("p=" << p << " m=" << m);
            const double expected = double(p - 2) / double(4 * m + p - 2);
            for (double ratio : bubbleRatios("bitpipe", p, m, 1))
                CHECK(ratio == Approx(expected).margin(1e-12));
        }
}

// ---------------------------------------------------------------------------------------------
// Both

TEST_CASE("Bidirectional bubble ratios equal the specification's table", "[golden][chimera][bitpipe]") {
    struct Row {
        int p, m;
        double tb;               // T_B / T_F
        double chimera, bitpipe; // NAN = not defined
    };
    // clang-format off
    const Row table[] = {
        {4, 4, 1, 0.2000, 0.1111}, {4, 4, 2, 0.2500, 0.1429},
        {4, 8, 1, 0.1111, 0.0588}, {4, 8, 2, 0.2000, 0.1111},
        {4, 16, 1, 0.0588, 0.0303}, {4, 16, 2, 0.1724, 0.0943},
        {8, 8, 1, 0.2727, 0.1579}, {8, 8, 2, 0.3333, 0.2000},
        {8, 16, 1, 0.1579, 0.0857}, {8, 16, 2, 0.2727, 0.1579},
        {8, 32, 1, NAN, 0.0448}, {8, 32, 2, NAN, 0.1351},
    };
    // clang-format on
    for (const Row& row : table) {
        INFO("p=" << row.p << " m=" << row.m << " T_B/T_F=" << row.tb);
        if (!std::isnan(row.chimera))
            for (double ratio : bubbleRatios("chimera", row.p, row.m, row.tb))
                CHECK(ratio == Approx(row.chimera).margin(5e-5));
        for (double ratio : bubbleRatios("bitpipe", row.p, row.m, row.tb))
            CHECK(ratio == Approx(row.bitpipe).margin(5e-5));
    }
}

TEST_CASE("Chimera and BitPipe are valid for every even p and m multiple of p",
          "[chimera][bitpipe][property]") {
    for (const char* name : {"chimera", "bitpipe"})
        for (int p = 2; p <= 16; p += 2)
            for (int m = p; m <= 64; m += p) {
                INFO(name << " p=" << p << " m=" << m);
                const Schedule s = generateSchedule(name, {p, m, 1});
                const auto problems = findProblems(s, 3);
                INFO((problems.empty() ? std::string() : problems.front().message));
                REQUIRE(problems.empty());
                REQUIRE(s.pipes == 2);
                // Chimera: one stage per pipe per device; BitPipe: two (the V's legs).
                const std::ptrdiff_t stagesPerDevice = s.stagesPerPipe / p;
                for (int d = 0; d < p; ++d) {
                    const auto& ops = s.order[d];
                    const auto count = [&](OpKind kind) {
                        return std::count_if(ops.begin(), ops.end(),
                                             [&](const Op& op) { return op.kind == kind; });
                    };
                    // m/2 micro-batches per pipe through each of the device's 2 * stagesPerDevice stages.
                    CHECK(count(OpKind::F) == stagesPerDevice * m);
                    CHECK(count(OpKind::B) == stagesPerDevice * m);
                    CHECK(count(OpKind::GradSync) == 2 * stagesPerDevice);
                }
                // Every replica syncs exactly once, on its own device, and its partner (the same
                // stage index in the other pipe) syncs too, so the collective can form.
                std::vector<int> syncs(std::size_t(2 * s.stagesPerPipe), 0);
                for (int d = 0; d < p; ++d)
                    for (const Op& op : s.order[d])
                        if (op.kind == OpKind::GradSync) {
                            CHECK(op.mb == -1);
                            CHECK(s.slot(op.pipe, op.stage).device == d);
                            ++syncs[std::size_t(op.pipe) * std::size_t(s.stagesPerPipe) +
                                    std::size_t(op.stage)];
                        }
                CHECK(std::all_of(syncs.begin(), syncs.end(), [](int n) { return n == 1; }));
                // Collectives that take time still cannot block a device: syncs are posted.
                const OpIndex index(s);
                CHECK(listSchedule(s, index, fullStageCosts(s, 1, 2, 0, 0.5, 3.0)).complete());
            }
}

TEST_CASE("Odd pp and microbatches not a multiple of pp are rejected by name", "[chimera][bitpipe]") {
    for (const std::string name : {"chimera", "bitpipe"}) {
        for (int p : {3, 5, 7, 9}) {
            INFO(name << " p=" << p);
            try {
                generateSchedule(name, {p, 2 * p, 1});
                FAIL("accepted an odd pp");
            } catch (const ValidationError& e) {
                CHECK(e.field() == "parallel.pp");
                CHECK(e.message() == "parallel.pp = " + std::to_string(p) + ": " + name +
                                         " runs two pipelines in opposite directions and needs an even pp");
            }
        }
        for (auto [p, m] : std::initializer_list<std::pair<int, int>>{{4, 6}, {4, 2}, {8, 12}, {2, 3}}) {
            INFO(name << " p=" << p << " m=" << m);
            try {
                generateSchedule(name, {p, m, 1});
                FAIL("accepted microbatches % pp != 0");
            } catch (const ValidationError& e) {
                CHECK(e.field() == "parallel.microbatches");
                CHECK(e.message() == "parallel.microbatches = " + std::to_string(m) + ": " + name +
                                         " needs microbatches % pp == 0 (pp = " + std::to_string(p) + ")");
            }
        }
    }
}

TEST_CASE("BitPipe D=4 N=8 in the paper figure's order ends a unit before the code's", "[golden][bitpipe]") {
    const Schedule figure = generateSchedule("bitpipe-figure", {4, 8, 1});
    validate(figure);
    const Timed t = simulateWithoutSyncs(figure, 2, 4);
    requireGoldenRows(t, "bitpipe-figure_p4_m8", bitpipeLabel);
    CHECK(t.sim.makespan == 53);
    requireUniform(t.sim.busy, 48);
    CHECK(t.sim.span == std::vector<double>{53, 50, 50, 53});
    // The two orders differ only where the units meet on the outer devices.
    const Schedule code = generateSchedule("bitpipe", {4, 8, 1});
    CHECK_THAT(renderOrder(code, 0, bitpipeLabel), Catch::Contains("B1 F5 B2 F6"));
    CHECK_THAT(renderOrder(figure, 0, bitpipeLabel), Catch::Contains("B1 F5 F6 B2"));
    CHECK_THAT(renderOrder(figure, 3, bitpipeLabel), Catch::Contains("B3' F7' F8' B4'"));
    for (int d : {1, 2}) CHECK(renderOrder(code, d, bitpipeLabel) == renderOrder(figure, d, bitpipeLabel));
    // Per stage F = 1 and a whole backward of 2 (a chunk is half a stage): 26.5 against 27, bubble
    // 1 - 24 / 26.5 = 0.094 against 1 - 24 / 27 = 0.111.
    CHECK(simulateWithoutSyncs(figure, 1, 2).sim.makespan == Approx(26.5));
    CHECK(simulateWithoutSyncs(code, 1, 2).sim.makespan == Approx(27));
}

TEST_CASE("BitPipe's figure order is valid wherever the code's is", "[bitpipe][property]") {
    for (int p = 2; p <= 12; p += 2)
        for (int m = p; m <= 6 * p; m += p) {
            INFO("p " << p << " m " << m);
            const Schedule s = generateSchedule("bitpipe-figure", {p, m, 1});
            validate(s);
            CHECK(lower(s).peakBuffers == lower(generateSchedule("bitpipe", {p, m, 1})).peakBuffers);
        }
}
