// Seq1F1B-I (interleaved 1F1B over sequence slices, the authors' code): a case worked by hand from
// the code's lookup, k = 1 giving Megatron's interleaved order exactly, the slices' order on every
// stage, the closed-form idle (p - 1)(F + B) / (v k) per device, and the refusals.
#include "error.h"
#include "generators/registry.h"
#include "sim/simulator.h"
#include "sliced_schedules.h"
#include "validate/validator.h"

#include <catch2/catch.hpp>
#include <string>

using namespace stagecraft;

namespace {

ScheduleParams params(int p, int m, int v, int k) {
    ScheduleParams out = test::slicedParams(p, m, k);
    out.chunks = v;
    return out;
}

/// Device d's ops, "0F0.0 0F0.1 2F0.0 ...".
std::string orderText(const Schedule& s, int d) {
    std::string out;
    for (const Op& op : s.order[std::size_t(d)])
        out += (out.empty() ? "" : " ") + opName(op, s.splitBackward, s.sequenceSlices);
    return out;
}

} // namespace

TEST_CASE("Seq1F1B-I p=2 m=2 v=2 k=2 follows the authors' lookup", "[golden][seq1f1b]") {
    // p * v = 4 steps per round: chunk (i mod 4) / 2 runs its n-th unit, n = (i / 4) 2 + i mod 2.
    // m == p: every forward first (Megatron's all-warm-up branch). Backwards: the chunks reversed,
    // unit n -> micro-batch n / 2, slice 1 - n mod 2 (the authors' queue pops a micro-batch's
    // slices last first).
    const Schedule s = generateSchedule("seq1f1b-i", params(2, 2, 2, 2));
    validate(s);
    CHECK(s.sequenceSlices == 2);
    CHECK(s.stagesPerPipe == 4);
    CHECK(orderText(s, 0) == "0F0.0 0F0.1 2F0.0 2F0.1 0F1.0 0F1.1 2F1.0 2F1.1 "
                             "2B0.1 2B0.0 0B0.1 0B0.0 2B1.1 2B1.0 0B1.1 0B1.0");
    CHECK(orderText(s, 1) == "1F0.0 1F0.1 3F0.0 3F0.1 1F1.0 1F1.1 3F1.0 3F1.1 "
                             "3B0.1 3B0.0 1B0.1 1B0.0 3B1.1 3B1.0 1B1.1 1B1.0");
}

TEST_CASE("Seq1F1B-I p=2 m=4 v=2 k=2: warm-up (v-1)p + 2(p-r-1) + k-1, then one forward and one backward",
          "[golden][seq1f1b]") {
    const Schedule s = generateSchedule("seq1f1b-i", params(2, 4, 2, 2));
    validate(s);
    // Device 0: 2 + 2 + 1 = 5 forwards; device 1: 2 + 0 + 1 = 3.
    CHECK(orderText(s, 0) == "0F0.0 0F0.1 2F0.0 2F0.1 0F1.0 0F1.1 2B0.1 2F1.0 2B0.0 2F1.1 0B0.1 0F2.0 0B0.0 "
                             "0F2.1 2B1.1 2F2.0 2B1.0 2F2.1 0B1.1 0F3.0 0B1.0 0F3.1 2B2.1 2F3.0 2B2.0 2F3.1 "
                             "0B2.1 0B2.0 2B3.1 2B3.0 0B3.1 0B3.0");
    CHECK(orderText(s, 1) == "1F0.0 1F0.1 3F0.0 3F0.1 3B0.1 1F1.0 3B0.0 1F1.1 1B0.1 3F1.0 1B0.0 3F1.1 3B1.1 "
                             "1F2.0 3B1.0 1F2.1 1B1.1 3F2.0 1B1.0 3F2.1 3B2.1 1F3.0 3B2.0 1F3.1 1B2.1 3F3.0 "
                             "1B2.0 3F3.1 3B3.1 3B3.0 1B3.1 1B3.0");
}

TEST_CASE("Seq1F1B-I with one slice is Megatron's interleaved 1F1B", "[seq1f1b]") {
    for (const auto& [p, m, v] : {std::tuple{2, 4, 2}, {4, 8, 2}, {4, 4, 2}, {4, 12, 3}, {3, 9, 2}}) {
        CAPTURE(p, m, v);
        const Schedule s = generateSchedule("seq1f1b-i", params(p, m, v, 1));
        ScheduleParams plain{p, m, v};
        const Schedule interleaved = generateSchedule("interleaved", plain);
        CHECK(s.order == interleaved.order);
        CHECK(s.placement == interleaved.placement);
    }
}

TEST_CASE("Seq1F1B-I idles (p - 1)(F + B) / (v k) per device; slices keep their order on every stage",
          "[seq1f1b]") {
    for (const auto& [p, m, v, k] : {std::tuple{2, 4, 2, 2},
                                     {4, 8, 2, 2},
                                     {4, 8, 2, 4},
                                     {4, 4, 2, 2},
                                     {4, 8, 3, 2},
                                     {3, 6, 2, 3},
                                     {8, 16, 2, 4}}) {
        CAPTURE(p, m, v, k);
        const Schedule s = generateSchedule("seq1f1b-i", params(p, m, v, k));
        validate(s);
        // F = 1 and B = 2 per micro-batch and full stage: a device computes 3 m.
        const Timeline t = simulate(s, fullStageCosts(s, 1, 1, 1));
        CHECK(t.makespan() == Approx(3.0 * m + (p - 1) * 3.0 / (v * k)));
        for (int stage = 0; stage < s.stagesPerPipe; ++stage) {
            int lastForward = -1, backwards = 0;
            for (const Op& op : s.order[std::size_t(stage % p)]) {
                if (op.stage != stage) continue;
                if (op.kind == OpKind::F) {
                    CHECK(op.mb == lastForward + 1); // units ascending
                    lastForward = op.mb;
                } else {
                    // micro-batches ascending, their slices descending
                    CHECK(op.mb == (backwards / k) * k + (k - 1 - backwards % k));
                    ++backwards;
                }
            }
            CHECK(backwards == m * k);
        }
    }
}

TEST_CASE("Seq1F1B-I refuses one chunk and micro-batches that p does not divide", "[seq1f1b]") {
    CHECK_THROWS_WITH(generateSchedule("seq1f1b-i", params(4, 8, 1, 2)),
                      Catch::Contains("parallel.chunks = 1: seq1f1b-i needs chunks in 2.."));
    CHECK_THROWS_WITH(generateSchedule("seq1f1b-i", params(4, 6, 2, 2)),
                      Catch::Contains("parallel.microbatches = 6: seq1f1b-i needs microbatches % pp == 0"));
}
