// Seq1F1B (1F1B over sequence slices): the order of the reference's worked example and of the
// paper's Figure 1 with its makespan, the closed-form bubble, the memory claim against 1F1B at
// equal m, the slice order the validator asks for, names with their slice, and schedule files.
#include "error.h"
#include "generators/registry.h"
#include "io/chrome_trace.h"
#include "io/schedule_json.h"
#include "io/torch_csv.h"
#include "ir/op_name.h"
#include "sim/memory_model.h"
#include "sim/simulator.h"
#include "sliced_schedules.h"
#include "validate/validator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace stagecraft;

namespace {

const auto sliced = test::slicedParams;

/// Device `d`'s order as the reference writes it: "F0.0 F0.1 ... B3.0" (kind, micro-batch, slice).
std::string orderText(const Schedule& s, int d) {
    std::string out;
    for (const Op& op : s.order[std::size_t(d)]) out += (out.empty() ? "" : " ") + test::sliceOpText(s, op);
    return out;
}

} // namespace

TEST_CASE("Seq1F1B p=4 m=4 k=2 runs the reference's worked order", "[golden][seq1f1b]") {
    const Schedule s = generateSchedule("seq1f1b", sliced(4, 4, 2));
    validate(s);
    CHECK(s.sequenceSlices == 2);
    CHECK(s.microbatches == 8); // slice units
    const std::vector<std::string> expected{
        "F0.0 F0.1 F1.0 F1.1 F2.0 B0.1 F2.1 B0.0 F3.0 B1.1 F3.1 B1.0 B2.1 B2.0 B3.1 B3.0",
        "F0.0 F0.1 F1.0 F1.1 B0.1 F2.0 B0.0 F2.1 B1.1 F3.0 B1.0 F3.1 B2.1 B2.0 B3.1 B3.0",
        "F0.0 F0.1 F1.0 B0.1 F1.1 B0.0 F2.0 B1.1 F2.1 B1.0 F3.0 B2.1 F3.1 B2.0 B3.1 B3.0",
        "F0.0 F0.1 B0.1 F1.0 B0.0 F1.1 B1.1 F2.0 B1.0 F2.1 B2.1 F3.0 B2.0 F3.1 B3.1 B3.0"};
    for (int d = 0; d < 4; ++d) {
        INFO("device " << d);
        CHECK(orderText(s, d) == expected[std::size_t(d)]);
    }
}

TEST_CASE("Seq1F1B p=4 m=8 k=2 reproduces Figure 1: 28.5 units against 1F1B's 33", "[golden][seq1f1b]") {
    // F = 1 and B = 2 per micro-batch: a slice's forward takes 0.5, its backward 1.
    const Schedule s = generateSchedule("seq1f1b", sliced(4, 8, 2));
    validate(s);
    const Timeline t = simulate(s, fullStageCosts(s, 1, 1, 1));
    CHECK(t.makespan() == Approx(28.5));
    const Schedule plain = generateSchedule("1f1b", {4, 8, 1});
    CHECK(simulate(plain, fullStageCosts(plain, 1, 1, 1)).makespan() == Approx(33));
    // Device 0's starts in half-units, as the reference lists them from the figure.
    const std::vector<double> halfUnits{0,  1,  2,  3,  4,  11, 13, 14, 16, 17, 19, 20, 22, 23, 25, 26,
                                        28, 29, 31, 32, 34, 35, 37, 38, 40, 41, 43, 44, 47, 50, 53, 55};
    std::vector<double> starts;
    for (const TimelineEvent& e : t.events)
        if (e.device == 0 && e.lane == Lane::Compute) starts.push_back(2 * e.start);
    CHECK(starts == halfUnits);
    // The closed form: each device idles (p - 1)(T_F + T_B) / k = 3 x 3 / 2 = 4.5 units.
    std::vector<double> busy(4, 0.0);
    for (const TimelineEvent& e : t.events)
        if (e.lane == Lane::Compute) busy[std::size_t(e.device)] += e.duration();
    for (const double b : busy) CHECK(t.makespan() - b == Approx(4.5));
    // And at k = 4: 2.25.
    const Schedule four = generateSchedule("seq1f1b", sliced(4, 8, 4));
    const Timeline t4 = simulate(four, fullStageCosts(four, 1, 1, 1));
    CHECK(t4.makespan() == Approx(24 + 2.25));
}

TEST_CASE("Seq1F1B holds (p + k - 1) / k micro-batches of activations on device 0, 1F1B p",
          "[memory][seq1f1b]") {
    // Device r holds p - r + k - 1 slices of M_B / k; 1F1B holds min(p - r, m) whole micro-batches.
    for (const int p : {2, 4, 8})
        for (const int k : {2, 4}) {
            INFO("p " << p << " k " << k);
            const int m = 2 * p;
            const Schedule s = generateSchedule("seq1f1b", sliced(p, m, k));
            const Schedule plain = generateSchedule("1f1b", {p, m, 1});
            const MemoryReport sliceMemory =
                computeMemory(s, simulate(s, fullStageCosts(s, 1, 1, 1)), unitMemoryInputs(s));
            const MemoryReport plainMemory = computeMemory(
                plain, simulate(plain, fullStageCosts(plain, 1, 1, 1)), unitMemoryInputs(plain));
            for (int r = 0; r < p; ++r) {
                CHECK(sliceMemory.devices[std::size_t(r)].peakBytes == Approx(double(p - r + k - 1) / k));
                CHECK(plainMemory.devices[std::size_t(r)].peakBytes == Approx(p - r));
            }
            // The reference's ratio on device 0: (p + k - 1) / (p k), 5/8 at p = 4, k = 2.
            CHECK(sliceMemory.devices[0].peakBytes / plainMemory.devices[0].peakBytes ==
                  Approx(double(p + k - 1) / (p * k)));
        }
}

TEST_CASE("The validator asks forwards in slice order and backwards in reverse", "[validate][seq1f1b]") {
    const Schedule good = generateSchedule("seq1f1b", sliced(2, 2, 2));
    validate(good);
    // Device 1 (the last stage): F0.0 F0.1 B0.1 ... Swap its first two forwards.
    Schedule forwards = good;
    std::swap(forwards.order[1][0], forwards.order[1][1]);
    const std::vector<Problem> f = findProblems(forwards);
    REQUIRE_FALSE(f.empty());
    CHECK_THAT(f.front().message, Catch::Contains("1F0.1") && Catch::Contains("1F0.0"));
    // B0.1 B0.0 run in that order; B0.0 first waits for B0.1's key and value gradients.
    Schedule backwards = good;
    auto& ops = backwards.order[1];
    const auto b1 = std::find(ops.begin(), ops.end(), Op{OpKind::B, 0, 0, 1, 1});
    const auto b0 = std::find(ops.begin(), ops.end(), Op{OpKind::B, 0, 0, 1, 0});
    REQUIRE(b1 < b0);
    std::iter_swap(b1, b0);
    const std::vector<Problem> b = findProblems(backwards);
    REQUIRE_FALSE(b.empty());
    CHECK_THAT(b.front().message, Catch::Contains("1B0.0") && Catch::Contains("1B0.1"));
}

TEST_CASE("Op names carry the slice; files keep the slices", "[io][seq1f1b]") {
    const Op unit7{OpKind::F, 0, 0, 2, 7};
    CHECK(opName(unit7, false, 2) == "2F3.1");
    CHECK(opName(Op{OpKind::B, 0, 0, 2, 6}, false, 2) == "2B3.0");
    CHECK(opName(unit7, false) == "2F7");
    std::string why;
    const auto parsed = parseOpName("2F3.1", &why, 2);
    REQUIRE(parsed);
    CHECK(*parsed == unit7);
    CHECK_FALSE(parseOpName("2F3.1", &why));
    CHECK_THAT(why, Catch::Contains("cuts no micro-batch into sequence slices"));
    CHECK_FALSE(parseOpName("2F3.2", &why, 2));
    CHECK_THAT(why, Catch::Contains("slice 2") && Catch::Contains("0..1"));
    CHECK_FALSE(parseOpName("2SYNC.1", &why, 2));

    const Schedule s = generateSchedule("seq1f1b", sliced(4, 4, 2));
    const std::string json = scheduleToJson(s);
    CHECK_THAT(json, Catch::Contains("\"sequence_slices\": 2") && Catch::Contains("\"0F3.1\""));
    const Schedule back = parseScheduleJson(json, "seq1f1b.json");
    CHECK(back == s);
    // The same file with the slices taken away no longer reads.
    std::string stripped = json;
    stripped.erase(stripped.find("  \"sequence_slices\": 2,\n"),
                   std::string("  \"sequence_slices\": 2,\n").size());
    CHECK_THROWS_WITH(parseScheduleJson(stripped, "stripped.json"), Catch::Contains("sequence_slices is 1"));

    // A Chrome trace of the prediction names ops with their slice and reads back with its shape.
    const Timeline t = simulate(s, fullStageCosts(s, 1, 1, 1));
    const std::string trace = timelineToChromeTrace(t);
    CHECK_THAT(trace, Catch::Contains("\"name\":\"0F3.1\"") && Catch::Contains("\"sequence_slices\":2"));
    const Timeline read = parseChromeTrace(trace, "seq1f1b.trace.json");
    CHECK(read.shape == t.shape);

    // torch's CSV has no slice index: refused, naming why.
    CHECK_THROWS_WITH(scheduleToTorchCsv(s), Catch::Contains("sequence slices"));
}
