// The one rule for a transfer measured at both ends: when it could run, who waited for whom and
// how long, and a receive that returned before its send was posted (two clocks that disagree).
#include "io/measured_transfer.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

TEST_CASE("a transfer runs from both ends posted to the receive's return; the first side waited",
          "[measured_transfer]") {
    // The receive was posted at 2, the send at 5: the receiver waited 3 µs, the data moved 5..9.
    const MeasuredTransfer late = measureTransfer({5, 6, 2, 9});
    CHECK(late.start == 5);
    CHECK(late.end == 9);
    CHECK(late.receiverWaited);
    CHECK(late.waitStart == 2);
    CHECK(late.waitEnd == 5);
    CHECK(late.receiverWait() == 3);
    CHECK(late.senderWait() == 0);
    CHECK(late.clockContradiction == 0);

    // The send posted first (rendezvous: it returns once the receive took the data).
    const MeasuredTransfer early = measureTransfer({1, 8, 4, 8});
    CHECK_FALSE(early.receiverWaited);
    CHECK(early.senderWait() == 3);
    CHECK(early.receiverWait() == 0);
    CHECK(early.start == 4);
    CHECK(early.end == 8);
}

TEST_CASE("an eager send that returned before the receive was posted waited only while it ran",
          "[measured_transfer]") {
    // gloo buffers a small send: posted at 1, returned at 2, the receive posted at 10.
    const MeasuredTransfer t = measureTransfer({1, 2, 10, 11});
    CHECK_FALSE(t.receiverWaited);
    CHECK(t.waitStart == 1);
    CHECK(t.waitEnd == 2); // not 10: the sender was free from 2
    CHECK(t.start == 10);
    CHECK(t.end == 11);
}

TEST_CASE("a receive that returned before its send was posted is a clock contradiction",
          "[measured_transfer]") {
    const MeasuredTransfer t = measureTransfer({10, 12, 3, 4});
    CHECK(t.clockContradiction == 6);
    CHECK(t.end == t.start); // never drawn backwards
    CHECK(measureTransfer({3, 4, 3, 4}).clockContradiction == 0);
}
