// Core's one chart composition at the two figure widths of papers: nothing clipped, the subtitle
// and cost line optional, the unit-time step grid.
#include "eval/chart_composition.h"
#include "eval/evaluation.h"
#include "layout/palette.h"
#include "layout/text_metrics.h"
#include "project/project_json.h"

#include <catch2/catch.hpp>
#include <string>

using namespace stagecraft;

namespace {

AnalysisResult sampleResult(bool unitTime) {
    AnalysisRequest request;
    request.project = readProject(std::string(STAGECRAFT_SOURCE_DIR) + "/samples/zb-6.2b.stagecraft.json");
    request.project.schedules = {"zb-v"};
    if (unitTime) applyUnitTime(request);
    return analyze(request);
}

bool anyTextStartsWith(const Scene& scene, const std::string& prefix) {
    for (const SceneText& t : scene.texts)
        if (t.text.starts_with(prefix)) return true;
    return false;
}

} // namespace

TEST_CASE("Single- and double-column figures clip nothing", "[chart][labels]") {
    const AnalysisResult result = sampleResult(false);
    REQUIRE(result.outcomes.size() == 1);
    for (double width : {kSingleColumnPt, kDoubleColumnPt}) {
        const Scene scene = buildChartScene(result, ChartSettings{}, width);
        CHECK(scene.width == width);
        CHECK(anyTextStartsWith(scene, "Costs — "));
        for (const SceneText& t : scene.texts) {
            INFO(width << " pt: '" << t.text << "'");
            const double w = estimateTextWidth(t.text, t.size, t.bold);
            const double left = t.anchor == TextAnchor::Start    ? t.x
                                : t.anchor == TextAnchor::Middle ? t.x - w / 2
                                                                 : t.x - w;
            CHECK(left >= 0);
            CHECK(left + w <= scene.width + 1e-9);
            CHECK(t.y <= scene.height);
        }
    }
}

TEST_CASE("The subtitle and the cost line can be left out", "[chart]") {
    const AnalysisResult result = sampleResult(false);
    ChartSettings settings;
    const Scene full = buildChartScene(result, settings, kDoubleColumnPt);
    CHECK(anyTextStartsWith(full, "p=8 · m=32"));
    settings.subtitle = false;
    settings.costLine = false;
    const Scene bare = buildChartScene(result, settings, kDoubleColumnPt);
    CHECK_FALSE(anyTextStartsWith(bare, "p=8 · m=32"));
    CHECK_FALSE(anyTextStartsWith(bare, "Costs"));
    CHECK(anyTextStartsWith(bare, "ZB-V"));
    CHECK(bare.height < full.height);
}

TEST_CASE("Unit time draws the papers' step grid from any costs", "[chart]") {
    const AnalysisResult analytic = sampleResult(false);
    ChartSettings settings;
    settings.unitTime = true;
    // Analytic costs are not unit steps: no grid even when asked.
    const Scene none = buildChartScene(analytic, settings, kDoubleColumnPt);
    const AnalysisResult unit = sampleResult(true);
    REQUIRE(unit.outcomes.front().prediction.report.unitless);
    const Scene grid = buildChartScene(unit, settings, kDoubleColumnPt);
    settings.unitTime = false;
    const Scene plain = buildChartScene(unit, settings, kDoubleColumnPt);
    const double makespan = unit.outcomes.front().prediction.timeline.makespan();
    // One line per unit step from 0 to the makespan, over the rows.
    CHECK(grid.lines.size() == plain.lines.size() + std::size_t(makespan) + 1);
    CHECK(none.lines.size() == buildChartScene(analytic, ChartSettings{}, kDoubleColumnPt).lines.size());
}
