// TeraPipe (GPipe over token slices): the order of the authors' code on a case worked by hand,
// the closed-form bubble it shares with Seq1F1B, and the memory of GPipe it pays for it.
#include "generators/registry.h"
#include "ir/op_name.h"
#include "sim/memory_model.h"
#include "sim/simulator.h"
#include "sliced_schedules.h"
#include "validate/validator.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace stagecraft;

namespace {

const auto sliced = test::slicedParams;

/// Device d's ops with their starts, "F0.0@0 F0.1@0.5 ...".
std::string startsText(const Schedule& s, const Timeline& t, int d) {
    std::string out;
    for (const TimelineEvent& e : t.events) {
        if (e.device != d || e.lane != Lane::Compute) continue;
        char start[32];
        std::snprintf(start, sizeof start, "@%g", e.start);
        out += (out.empty() ? "" : " ") + test::sliceOpText(s, e.op) + start;
    }
    return out;
}

} // namespace

TEST_CASE("TeraPipe p=2 m=2 k=2: every forward, then the backwards in reverse", "[golden][terapipe]") {
    // F = 1 and B = 2 per micro-batch (unit costs, backward not split): a slice takes 0.5 and 1.
    const Schedule s = generateSchedule("terapipe", sliced(2, 2, 2));
    validate(s);
    CHECK(s.sequenceSlices == 2);
    const Timeline t = simulate(s, fullStageCosts(s, 1, 1, 1));
    CHECK(startsText(s, t, 0) == "F0.0@0 F0.1@0.5 F1.0@1 F1.1@1.5 B1.1@3.5 B1.0@4.5 B0.1@5.5 B0.0@6.5");
    CHECK(startsText(s, t, 1) == "F0.0@0.5 F0.1@1 F1.0@1.5 F1.1@2 B1.1@2.5 B1.0@3.5 B0.1@4.5 B0.0@5.5");
    CHECK(t.makespan() == Approx(7.5)); // (m k + p - 1)(F + B) / k
}

TEST_CASE("TeraPipe has Seq1F1B's bubble and GPipe's memory", "[terapipe][memory]") {
    for (const int k : {2, 4}) {
        INFO("k " << k);
        const Schedule s = generateSchedule("terapipe", sliced(4, 8, k));
        validate(s);
        const Timeline t = simulate(s, fullStageCosts(s, 1, 1, 1));
        // p = 4, m = 8: (m k + p - 1)(F + B) / k; each device idles (p - 1)(F + B) / k.
        CHECK(t.makespan() == Approx((8.0 * k + 3) * 3 / k));
        const Schedule seq = generateSchedule("seq1f1b", sliced(4, 8, k));
        CHECK(simulate(seq, fullStageCosts(seq, 1, 1, 1)).makespan() == Approx(t.makespan()));
        // Every slice of every micro-batch is in flight before the first backward: m whole
        // micro-batches on every device, GPipe's peak; Seq1F1B holds p - r + k - 1 slices.
        const MemoryReport memory = computeMemory(s, t, unitMemoryInputs(s));
        for (int r = 0; r < 4; ++r) CHECK(memory.devices[std::size_t(r)].peakBytes == Approx(8));
    }
}
