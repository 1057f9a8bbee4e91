// Line breaking of chart texts (layout/text_metrics.h).
#include "layout/text_metrics.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

TEST_CASE("Text wraps at spaces to the width and keeps every word", "[layout][text]") {
    const std::string text = "Costs: unit: F = B = W = 1 per stage, no communication";
    const double size = 10;
    const double width = estimateTextWidth("Costs: unit: F = B", size);
    const std::vector<std::string> lines = wrapText(text, size, width);
    REQUIRE(lines.size() > 1);
    std::string joined;
    for (const std::string& line : lines) {
        joined += (joined.empty() ? "" : " ") + line;
        CHECK(line.front() != '=');
        CHECK(line.back() != '=');
    }
    CHECK(joined == text);
}

TEST_CASE("An equation is never broken across lines", "[layout][text]") {
    const std::string text = "backward not split: one box B+W = 2";
    const double size = 10;
    // Wide enough for everything but the last word: a plain break would leave "2" alone.
    const double width = estimateTextWidth("backward not split: one box B+W =", size);
    const std::vector<std::string> lines = wrapText(text, size, width);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "backward not split: one box");
    CHECK(lines[1] == "B+W = 2");
    for (const std::string& line : lines) {
        CHECK(line.front() != '=');
        CHECK(line.back() != '=');
    }
}
