#include "exec/clock_sync.h"

#include <catch2/catch.hpp>

using namespace stagecraft::runtime;

TEST_CASE("the clock offset comes from the shortest round trip", "[runtime][clock]") {
    // The peer's clock runs 500 µs ahead; the second exchange queued 40 µs on the way back.
    const std::vector<PingSample> samples = {
        {100, 605, 110}, // round trip 10: offset 605 - 105 = 500
        {200, 705, 250}, // round trip 50: biased estimate 480
        {300, 806, 312}, // round trip 12: 500
    };
    const ClockOffset o = estimateOffset(samples);
    CHECK(o.offsetUs == Approx(500));
    CHECK(o.uncertaintyUs == Approx(5));
    CHECK(estimateOffset({}).offsetUs == 0);
    CHECK(estimateOffset({{10, 0, 5}}).uncertaintyUs == 0); // a reply before its request is ignored
}
