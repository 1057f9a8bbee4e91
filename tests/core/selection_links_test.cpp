// What a click outlines (core/eval/selection_links.h), the one rule of the app's chart and the
// viewer: a predicted op's dependencies; a measured box's, its prediction's, on the measured boxes.
#include "eval/project_simulation.h"
#include "eval/selection_links.h"
#include "generators/registry.h"
#include "project/project.h"
#include "sim/overlay.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace stagecraft;

namespace {

int eventOf(const Timeline& t, OpKind kind, int stage, int mb) {
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const Op& op = t.events[i].op;
        if (t.events[i].lane == Lane::Compute && op.kind == kind && op.stage == stage && op.mb == mb)
            return int(i);
    }
    return -1;
}

} // namespace

TEST_CASE("a click outlines the same dependencies on predicted and on measured boxes", "[selection]") {
    const Project project = defaultProject();
    const Prediction p = predict(project, generateSchedule("1f1b", ScheduleParams{4, 8, 1}));
    const EventDependencies deps(p);
    // A "measured" run: the prediction 10 % slower, every event in reverse order (a trace's order
    // is its own), so the indices differ from the prediction's.
    Timeline measured = p.timeline;
    measured.origin = "measured";
    for (TimelineEvent& e : measured.events) {
        e.start *= 1.1;
        e.end *= 1.1;
    }
    std::reverse(measured.events.begin(), measured.events.end());
    const OverlayReport overlay = compareTimelines(p.timeline, measured);
    const ComparedRows rows = compareRows(p.timeline, measured, overlay);

    // 2F3 waits for 1F3 (its input) and for the rank's op before it; 1B3 ... waits for it.
    const int f = eventOf(p.timeline, OpKind::F, 2, 3);
    REQUIRE(f >= 0);
    const SelectionLinks predicted = selectionLinks(deps, f);
    CHECK(std::count(predicted.producers.begin(), predicted.producers.end(),
                     eventOf(p.timeline, OpKind::F, 1, 3)) == 1);
    REQUIRE_FALSE(predicted.consumers.empty());
    CHECK(selectionLinks(deps, f, &rows).producers == predicted.producers); // a predicted box of paired rows

    // The measured box of the same op: the same ops, as their measured boxes.
    const int box = int(rows.rowEventOfMeasured(std::size_t(rows.measuredOf[std::size_t(f)])));
    const SelectionLinks links = selectionLinks(deps, box, &rows);
    REQUIRE(links.producers.size() == predicted.producers.size());
    REQUIRE(links.consumers.size() == predicted.consumers.size());
    auto measuredBox = [&](int e) {
        return int(rows.rowEventOfMeasured(std::size_t(rows.measuredOf[std::size_t(e)])));
    };
    for (std::size_t k = 0; k < links.producers.size(); ++k)
        CHECK(links.producers[k] == measuredBox(predicted.producers[k]));
    for (std::size_t k = 0; k < links.consumers.size(); ++k)
        CHECK(links.consumers[k] == measuredBox(predicted.consumers[k]));

    // A trace in a panel of its own, paired by the matching both ways: the measured events.
    std::vector<std::int32_t> toPredicted(measured.events.size(), -1),
        toMeasured(p.timeline.events.size(), -1);
    for (const OpDeviation& d : overlay.ops) {
        toPredicted[d.measuredEvent] = std::int32_t(d.predictedEvent);
        toMeasured[d.predictedEvent] = std::int32_t(d.measuredEvent);
    }
    const SelectionLinks paired =
        pairedSelectionLinks(deps, toMeasured[std::size_t(f)], toPredicted, toMeasured);
    REQUIRE(paired.producers.size() == predicted.producers.size());
    for (std::size_t k = 0; k < paired.producers.size(); ++k)
        CHECK(paired.producers[k] == toMeasured[std::size_t(predicted.producers[k])]);
    // An unmatched or invalid event outlines nothing.
    CHECK(selectionLinks(deps, -1).producers.empty());
    CHECK(pairedSelectionLinks(deps, int(measured.events.size()) + 3, toPredicted, toMeasured)
              .consumers.empty());
}
