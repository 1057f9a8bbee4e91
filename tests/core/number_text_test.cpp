// The one formatter of numbers and times (number_text.h): every front end prints a time with the
// same unit rule and the same digits.
#include "number_text.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace stagecraft;

TEST_CASE("A duration reads in the largest unit it reaches with four significant digits", "[text]") {
    CHECK(durationText(850) == "850 \u00b5s");
    CHECK(durationText(0.25) == "0.25 \u00b5s");
    CHECK(durationText(0.0004) == "0 \u00b5s"); // at most three decimals
    CHECK(durationText(999.4) == "999.4 \u00b5s");
    CHECK(durationText(999.96) == "1 ms"); // the unit of the value as shown
    CHECK(durationText(1000) == "1 ms");
    CHECK(durationText(12345) == "12.35 ms");
    CHECK(durationText(380259) == "380.3 ms");
    CHECK(durationText(1204000) == "1.204 s");
    CHECK(durationText(-3500) == "-3.5 ms");
    CHECK(durationText(0) == "0 \u00b5s");
    CHECK(durationText(NAN) == "? \u00b5s");
    CHECK(durationText(42.5, true) == "42.5");
    CHECK(durationText(42.5, false) == "42.5 \u00b5s");
}

TEST_CASE("Tables in ms and unit costs keep the same digits", "[text]") {
    CHECK(millisecondsText(12345) == "12.35");
    CHECK(millisecondsText(1.6) == "0.002"); // never finer than a µs in ms
    CHECK(millisecondsText(2.5e6) == "2500");
    CHECK(unitsText(42) == "42 units");
    CHECK(unitsText(42.126) == "42.13 units");
}

TEST_CASE("Sizes read in the largest binary unit they reach", "[text]") {
    CHECK(bytesText(512) == "512 B");
    CHECK(bytesText(1536) == "1.5 KiB");
    CHECK(bytesText(512.0 * (1 << 20)) == "512 MiB");
    CHECK(bytesText(1.5 * (1ull << 30)) == "1.5 GiB");
    CHECK(gibText(1.5 * (1ull << 30)) == "1.50 GiB"); // messages that compare sizes keep two decimals
    CHECK(groupedInteger(1234567) == "1,234,567");
}

TEST_CASE("A share reads as a percentage with one decimal", "[text]") {
    CHECK(shareText(1, 8) == "12.5 %");
    CHECK(shareText(1, 3) == "33.3 %");
    CHECK(shareText(3, 3) == "100.0 %");
    CHECK(shareText(0, 0) == "0.0 %");
}
