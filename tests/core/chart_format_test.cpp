// The one table of chart extensions every chart writer goes through.
#include "layout/chart_format.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

TEST_CASE("a chart file's extension names its format, in any letter case", "[chart_format]") {
    CHECK(chartFormatOf("a/b.svg") == ChartFormat::Svg);
    CHECK(chartFormatOf("chart.PDF") == ChartFormat::Pdf);
    CHECK(chartFormatOf("x.png") == ChartFormat::Png);
    CHECK(chartFormatOf("paper.tex") == ChartFormat::TikzDocument);
    CHECK(chartFormatOf("fig.tikz") == ChartFormat::TikzPicture);
    CHECK_FALSE(chartFormatOf("trace.json"));
    CHECK_FALSE(chartFormatOf("svg"));
    CHECK_FALSE(chartFormatOf(""));
    CHECK(std::string(chartFormatList()).find(".tikz") != std::string::npos);
}
