// Recompute ops in charts: one colour of their own in every style, the micro-batch number as the
// box label like every op, a legend entry only where R occurs, and the text Gantt's "R3".
#include "generators/registry.h"
#include "layout/gantt_layout.h"
#include "layout/palette.h"
#include "sim/simulator.h"
#include "text/text_gantt.h"

#include <catch2/catch.hpp>
#include <set>

using namespace stagecraft;

namespace {

Scene chartOf(const Timeline& t) {
    const std::vector<ChartPanel> panels{{&t, "", ""}};
    ChartOptions o;
    o.timeUnit = TimeUnit::Units;
    return layoutGantt(panels, o);
}

std::set<std::string> texts(const Scene& scene) {
    std::set<std::string> out;
    for (const SceneText& t : scene.texts) out.insert(t.text);
    return out;
}

} // namespace

TEST_CASE("every style gives R a colour of its own on both pipes", "[layout][recompute]") {
    for (const Palette& pal : palettes())
        for (int pipe = 0; pipe < 2; ++pipe) {
            INFO(pal.name << " pipe " << pipe);
            const Color r = opColor(pal, OpKind::R, pipe, 0, 1);
            CHECK(r == pal.compute[std::size_t(pipe)][3]);
            for (const OpKind other : {OpKind::F, OpKind::B, OpKind::W, OpKind::GradSync, OpKind::Optimizer})
                CHECK_FALSE(r == opColor(pal, other, pipe, 0, 1));
        }
}

TEST_CASE("R bars carry the R colour and their micro-batch, and the legend names them",
          "[layout][recompute]") {
    const Schedule s = generateSchedule("1f1b-recompute", {4, 8, 1});
    const Timeline t = simulate(s, fullStageCosts(s, 1, 2, 0));
    const Scene scene = chartOf(t);
    const Palette& pal = findPalette("paper");
    std::size_t bars = 0;
    for (const SceneRect& r : scene.rects) {
        if (r.role != RectRole::Op || r.event < 0 || t.events[std::size_t(r.event)].op.kind != OpKind::R)
            continue;
        ++bars;
        CHECK(r.kind == "R");
        CHECK(r.fill == opColor(pal, OpKind::R, 0, 0, 1));
    }
    CHECK(bars == 32);
    CHECK(texts(scene).count("recompute (R)") == 1);
    const Timeline plain = simulate(generateSchedule("1f1b", {4, 8, 1}), fullStageCosts(s, 1, 2, 0));
    CHECK(texts(chartOf(plain)).count("recompute (R)") == 0);

    TextGanttOptions options;
    options.color = false;
    const std::string text = renderTextGantt(generateSchedule("1f1b-recompute", {2, 2, 1}), options);
    CHECK(text.find("R0") != std::string::npos);
    CHECK(text.find("R1") != std::string::npos);
    CHECK(text.find(", R recompute") != std::string::npos);
}
