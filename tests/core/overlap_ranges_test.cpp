// torch's OVERLAP_F_B ranges (DualPipeV): the name read into two halves, the halves timed apart
// where the trace shows the backward's start, and by the stand-alone rule where it does not.
#include "io/overlap_ranges.h"

#include <catch2/catch.hpp>
#include <string>

using namespace stagecraft;

TEST_CASE("an OVERLAP_F_B name is read into a forward and a whole backward", "[overlap_ranges]") {
    ActionRange f, b;
    std::string why;
    REQUIRE(parseOverlapRangeName("(0F3;3B1)OVERLAP_F_B", f, b, &why) == 1);
    CHECK(f.kind == RangeKind::F);
    CHECK(f.stage == 0);
    CHECK(f.mb == 3);
    CHECK(f.overlap == OverlapHalf::Forward);
    CHECK(b.kind == RangeKind::B);
    CHECK(b.stage == 3);
    CHECK(b.mb == 1);
    CHECK(b.overlap == OverlapHalf::Backward);
    CHECK(parseOverlapRangeName("0F3", f, b, &why) == 0);

    auto refusal = [](std::string_view name) {
        ActionRange f, b;
        std::string why;
        return parseOverlapRangeName(name, f, b, &why) == -1 ? why : std::string("accepted");
    };
    CHECK(refusal("(0F3;3I1)OVERLAP_F_B") ==
          "'(0F3;3I1)OVERLAP_F_B' pairs a F with a I; torch's OVERLAP_F_B runs one forward (F) and then one "
          "whole backward (B)");
    CHECK(refusal("(0F3;3B1)OVERLAP") == "'(0F3;3B1)OVERLAP' is no compound action torch writes (expected "
                                         "'(<stage>F<mb>;<stage>B<mb>)OVERLAP_F_B')");
    CHECK(refusal("(0F3)OVERLAP_F_B") ==
          "'(0F3)OVERLAP_F_B' needs two sub-actions separated by ';', a forward and a whole backward");
    CHECK(refusal("(0F3;xB1)OVERLAP_F_B") ==
          "'(0F3;xB1)OVERLAP_F_B' has a sub-action that is no action: 'xB1' does not start with a stage "
          "number (torch's STAGE TYPE MB)");
}

TEST_CASE("the forward of an overlap range ends with its last op before the backward began",
          "[overlap_ranges]") {
    // Range [100, 200]: the forward's ops 110..130 (nested 112..120), a receive wait, then the
    // backward's autograd events from 150. Ops outside the range do not count.
    HostActivity a;
    a.addOp(90, 95);
    a.addOp(150, 160);
    a.addBackwardStart(150);
    a.addOp(110, 130);
    a.addOp(112, 120);
    a.addOp(165, 190);
    a.addBackwardStart(165);
    a.finish();
    double end = 0;
    REQUIRE(a.splitPoint(100, 200, end));
    CHECK(end == 130);
    // No autograd event inside: nothing to split at.
    CHECK_FALSE(a.splitPoint(0, 99, end));
    // A forward that runs straight into the backward (no wait between) ends where it began.
    HostActivity b;
    b.addOp(10, 50);
    b.addOp(50, 80);
    b.addBackwardStart(50);
    b.finish();
    REQUIRE(b.splitPoint(0, 100, end));
    CHECK(end == 50);
}

TEST_CASE("overlap ranges the trace cannot split are divided as the simulator divides a slot",
          "[overlap_ranges]") {
    // Stand-alone: F of stage 0 takes 2, B of stage 3 takes 6; the overlap range of 16 is split 1:3.
    std::vector<ActionRange> ranges(5);
    ranges[0] = ActionRange{RangeKind::F, 0, 0, -1, 0, 2, 0};
    ranges[1] = ActionRange{RangeKind::B, 3, 0, -1, 2, 8, 1};
    ranges[2] = ActionRange{RangeKind::F, 0, 1, -1, 10, 26, 2};
    ranges[2].overlap = OverlapHalf::Forward;
    ranges[3] = ActionRange{RangeKind::B, 3, 1, -1, 10, 26, 2};
    ranges[3].overlap = OverlapHalf::Backward;
    ranges[4] = ActionRange{RangeKind::F, 1, 0, -1, 30, 31, 3}; // another stage: not a sample
    std::vector<ActionRange*> pointers;
    for (ActionRange& r : ranges) pointers.push_back(&r);
    CHECK(divideWholeOverlaps(pointers) == 1);
    CHECK(ranges[2].start == 10);
    CHECK(ranges[2].end == 14);
    CHECK(ranges[3].start == 14);
    CHECK(ranges[3].end == 26);
    // Split already: left alone.
    CHECK(divideWholeOverlaps(pointers) == 0);
    // Without stand-alone samples: equal halves.
    std::vector<ActionRange> alone{ranges[2], ranges[3]};
    alone[0].end = alone[1].end = 26;
    alone[1].start = 10;
    std::vector<ActionRange*> two{&alone[0], &alone[1]};
    CHECK(divideWholeOverlaps(two) == 1);
    CHECK(alone[0].end == 18);
}
