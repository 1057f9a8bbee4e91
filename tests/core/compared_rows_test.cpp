// Predicted and measured side by side (layout/compared_rows.h, ChartSettings::measuredRows): each
// device's measured row directly under its predicted row, on one time axis, in every chart core
// composes (the app's screen and exports, the CLI's charts, the viewer).
#include "eval/chart_composition.h"
#include "eval/evaluation.h"
#include "eval/evaluation_input.h"
#include "generators/registry.h"
#include "layout/compared_rows.h"
#include "layout/svg_writer.h"
#include "sim/list_scheduler.h"
#include "sim/simulator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <map>

using namespace stagecraft;

namespace {

/// 1F1B at p = 2, m = 2 in unit costs, and a "measurement" of it that starts 100 later, whose
/// device 1 runs every op half again as long, and that holds one send the prediction lacks.
struct Pair {
    Timeline predicted, measured;
    OverlayReport overlay;
};

Pair pair() {
    Pair p;
    const Schedule s = generateSchedule("1f1b", {2, 2, 1});
    p.predicted = simulate(s, fullStageCosts(s, 1, 2, 0, 0.0));
    p.measured = p.predicted;
    for (TimelineEvent& e : p.measured.events) {
        const double length = e.duration() * (e.device == 1 ? 1.5 : 1.0);
        e.start += 100;
        e.end = e.start + length;
    }
    p.overlay = compareTimelines(p.predicted, p.measured);
    TimelineEvent send;
    send.lane = Lane::Comm;
    send.comm = CommKind::Activation;
    send.device = 0;
    send.peer = 1;
    send.op = p.predicted.events.front().op;
    send.start = 101;
    send.end = 101.5;
    p.measured.events.push_back(send);
    return p;
}

AnalysisResult hostRun() {
    EvaluationInput input;
    input.path = std::string(STAGECRAFT_REFERENCE_DIR) + "/runtime/tiny.stagecraft.json";
    input.schedules = {"zb-h1"};
    input.sets = {"parallel.pp=2", "parallel.microbatches=4", "model.hidden=256", "model.seq_len=128"};
    input.tracePath = std::string(STAGECRAFT_REFERENCE_DIR) + "/host-traces/zb-h1_pp2_m4_host.json";
    input.traceMedian = true;
    return analyze(loadAnalysisRequest(input));
}

} // namespace

TEST_CASE("paired rows: predicted events keep their indices on even rows, measured ones follow aligned",
          "[compared_rows]") {
    const Pair p = pair();
    const ComparedRows rows = compareRows(p.predicted, p.measured, p.overlay);
    CHECK(rows.timeline.shape.devices == 4);
    REQUIRE(rows.predictedCount == p.predicted.events.size());
    REQUIRE(rows.timeline.events.size() == p.predicted.events.size() + p.measured.events.size());
    CHECK(p.overlay.alignOffset == Approx(100));
    for (std::size_t k = 0; k < p.predicted.events.size(); ++k) {
        const TimelineEvent& e = rows.timeline.events[k];
        CHECK(e.op == p.predicted.events[k].op);
        CHECK(e.start == p.predicted.events[k].start);
        CHECK(e.device == 2 * p.predicted.events[k].device);
        CHECK_FALSE(rows.isMeasured(k));
    }
    for (std::size_t m = 0; m < p.measured.events.size(); ++m) {
        const std::size_t k = rows.rowEventOfMeasured(m);
        const TimelineEvent& e = rows.timeline.events[k];
        CHECK(rows.isMeasured(k));
        CHECK(rows.measuredEvent(k) == m);
        CHECK(e.device == 2 * p.measured.events[m].device + 1);
        CHECK(e.start == Approx(p.measured.events[m].start - 100));
    }
    // Every op is matched both ways; the extra send has no prediction.
    for (std::size_t k = 0; k < p.predicted.events.size(); ++k) CHECK(rows.measuredOf[k] == std::int32_t(k));
    CHECK(rows.predictedOf.back() == -1);
    CHECK(rows.rowLabels == std::vector<std::string>{"D0 predicted", "measured", "D1 predicted", "measured"});
    CHECK(rows.timeline.events.back().peer == 3); // the send to device 1 goes to its measured row
}

TEST_CASE("paired rows leave off what names no row of the prediction", "[compared_rows]") {
    Pair p = pair();
    p.measured.events.back().peer = 1 << 30; // a peer the run does not have
    TimelineEvent stray = p.measured.events.front();
    stray.device = 7;
    p.measured.events.push_back(stray);
    stray.device = 0;
    stray.end = std::numeric_limits<double>::quiet_NaN();
    p.measured.events.push_back(stray);
    const ComparedRows rows = compareRows(p.predicted, p.measured, p.overlay);
    const std::size_t n = rows.timeline.events.size();
    CHECK(rows.timeline.events[n - 3].peer == -1);
    CHECK(rows.timeline.events[n - 2].device == -1); // device 7 of a 2-device run
    CHECK(rows.timeline.events[n - 1].device == -1); // no end
    CHECK(rows.predictedOf.size() == p.measured.events.size());
}

TEST_CASE("paired rows' hover text names the op, both sides and the difference", "[compared_rows]") {
    const Pair p = pair();
    const ComparedRows rows = compareRows(p.predicted, p.measured, p.overlay);
    const TimeAxis units = niceTimeAxis(10, 5, TimeUnit::Units);
    // 1F1B p = 2: device 1's first op is stage 1's forward of micro-batch 0, at 1..2 predicted.
    std::size_t k = 0;
    while (p.predicted.events[k].device != 1) ++k;
    const std::string both = "1F0 on D1, %s\nmeasured: starts 1, lasts 1.5\npredicted: starts 1, lasts 1\n"
                             "difference: starts +0, lasts +0.5 (+50%)";
    auto expected = [&](const char* side) {
        std::string text = both;
        text.replace(text.find("%s"), 2, side);
        return text;
    };
    CHECK(comparedEventText(rows, k, units) == expected("predicted"));
    CHECK(comparedEventText(rows, rows.rowEventOfMeasured(k), units) == expected("measured"));
    CHECK(comparedEventText(rows, rows.timeline.events.size() - 1, units) ==
          "activation of 0F0 \u2192 D1 on D0, measured\nmeasured: starts 1, lasts 0.5\n"
          "only measured: the prediction has no such op");
    CHECK(comparedEventText(rows, rows.timeline.events.size(), units).empty());
}

TEST_CASE("measured under predicted: the chart of a real run pairs every device's rows",
          "[compared_rows][chart]") {
    const AnalysisResult result = hostRun();
    INFO(result.overlayError);
    REQUIRE(result.overlay);
    ChartSettings settings;
    settings.showComm = true;
    settings.measuredRows = MeasuredRows::UnderPredicted;
    const ChartComposition chart = composeChart(result, settings);
    REQUIRE(chart.compared);
    CHECK(chart.comparedPanel == 0);
    CHECK(chart.panels[0].timeline == &chart.compared->timeline);
    CHECK_FALSE(chart.panels[0].measured); // no outlines: the measured run has rows of its own
    CHECK(chart.panels[0].subtitle.find(" \u00b7 measured ") != std::string::npos);

    const Scene scene = buildChartScene(result, settings, kDoubleColumnPt);
    std::vector<std::string> labels;
    for (const SceneText& t : scene.texts)
        if (t.text.find("predicted") != std::string::npos || t.text == "measured") labels.push_back(t.text);
    CHECK(std::count(labels.begin(), labels.end(), "D0 predicted") == 1);
    CHECK(std::count(labels.begin(), labels.end(), "D1 predicted") == 1);
    CHECK(std::count(labels.begin(), labels.end(), "measured") == 2);
    // Each measured op sits one row under its prediction; each bar says both sides.
    std::map<int, const SceneRect*> bars;
    std::size_t outlines = 0, measuredBars = 0;
    for (const SceneRect& r : scene.rects) {
        if (r.kind == kMeasuredKind) ++outlines;
        if (r.role == RectRole::Op && r.event >= 0) bars[r.event] = &r;
    }
    CHECK(outlines == 0);
    const ComparedRows& rows = *chart.compared;
    for (const auto& [event, bar] : bars) {
        if (!rows.isMeasured(std::size_t(event))) continue;
        ++measuredBars;
        INFO(bar->tooltip);
        CHECK(bar->tooltip.find(", measured\nmeasured: starts ") != std::string::npos);
        const std::int32_t pred = rows.predictedOf[rows.measuredEvent(std::size_t(event))];
        if (pred < 0 || !bars.count(pred)) continue;
        CHECK(bar->y > bars.at(pred)->y);
        CHECK(bar->y - bars.at(pred)->y < 2.5 * bar->h); // the next row, not further
        CHECK(bar->tooltip.find("\ndifference: starts ") != std::string::npos);
    }
    CHECK(measuredBars ==
          result.measured->events.size() -
              std::size_t(std::count_if(result.measured->events.begin(), result.measured->events.end(),
                                        [](const TimelineEvent& e) { return e.lane == Lane::Comm; })));
    // The note under the chart says what the rows are; the SVG carries the hover texts.
    CHECK(std::any_of(scene.texts.begin(), scene.texts.end(), [](const SceneText& t) {
        return t.text.find("under each device's") != std::string::npos;
    }));
    CHECK(sceneToSvg(scene).find("<title>0F0 on D0, measured") != std::string::npos);

    // Overlaid (the default) keeps the outlines and the device rows.
    settings.measuredRows = MeasuredRows::Overlaid;
    const ChartComposition overlaid = composeChart(result, settings);
    CHECK_FALSE(overlaid.compared);
    CHECK(overlaid.panels[0].measured == result.measured.get());
}

TEST_CASE("the rows setting has one name per value", "[compared_rows]") {
    for (MeasuredRows r : {MeasuredRows::Overlaid, MeasuredRows::UnderPredicted})
        CHECK(parseMeasuredRows(measuredRowsName(r)) == r);
    CHECK_FALSE(parseMeasuredRows("under"));
}
