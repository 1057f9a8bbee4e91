#pragma once
// A prediction and its measurement as paired rows: each device's measured row directly under its
// predicted row, on the prediction's time axis. One timeline of 2p rows that core's chart layout
// draws like any other (layoutGantt for the exports, ChartRows for the screens), plus what a front
// end needs to say what is under the cursor. The "measured under predicted" composition of the app
// and its exports (eval/chart_composition.h), the CLI's charts and the viewer all build it here.
//
// The predicted events keep their indices (0 .. predictedCount - 1), so selections, dependencies,
// critical paths and search hits of the prediction address the same bars; the measured events
// follow. Measured times are aligned as the overlay aligns them (less OverlayReport::alignOffset),
// and every measured event is drawn, matched or not: ops the prediction lacks get their box and
// label too.

#include "layout/chart_common.h"
#include "sim/overlay.h"
#include "sim/timeline.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft {

struct ComparedRows {
    const Timeline* predicted = nullptr;
    const Timeline* measured = nullptr;
    double alignOffset = 0; ///< subtracted from every measured time
    /// Predicted events first at their own indices, device d on row 2d; then the measured events in
    /// their order, device d on row 2d + 1. Its shape is the prediction's with twice the devices.
    Timeline timeline;
    std::size_t predictedCount = 0;
    std::vector<std::int32_t> measuredOf;  ///< [predicted event] -> measured event, -1
    std::vector<std::int32_t> predictedOf; ///< [measured event] -> predicted event, -1
    std::vector<std::string> rowLabels;    ///< "D0 predicted", "measured", "D1 predicted" ...

    bool isMeasured(std::size_t event) const { return event >= predictedCount; }
    /// Index into `measured->events` of a measured row event (isMeasured).
    std::size_t measuredEvent(std::size_t event) const { return event - predictedCount; }
    /// Index into `timeline.events` of measured event m.
    std::size_t rowEventOfMeasured(std::size_t m) const { return predictedCount + m; }
    static int predictedRow(int device) { return 2 * device; }
    static int measuredRow(int device) { return 2 * device + 1; }
    /// The device a row of `timeline` stands for.
    static int deviceOfRow(int row) { return row / 2; }
    static bool isMeasuredRow(int row) { return row % 2 == 1; }
};

/// The paired rows of `predicted` and `measured`, matched by `overlay` (compareTimelines of the
/// two). Measured events on a device the prediction does not have, or with non-finite times, are
/// left out. Linear in events. The timelines must outlive the result.
ComparedRows compareRows(const Timeline& predicted, const Timeline& measured, const OverlayReport& overlay);

/// What the hover text of a bar of `rows.timeline` says, one line each: the op's name (opName) and
/// device, and whether it is the measured or the predicted box; then its measured and predicted
/// start and duration in the units of `axis` (the chart's), and the difference (measured minus
/// predicted) of both, the duration's also in percent. A box of one side only says so ("only
/// measured: the prediction has no such op"). Transfers are named by kind and their op.
std::string comparedEventText(const ComparedRows& rows, std::size_t event, const TimeAxis& axis);

/// The subtitle of a paired panel: the prediction's key figures, then the measurement's
/// makespan and its error: "p=4 · m=8 · makespan 12.5 ms · bubble 20% · measured 13.1 ms (+4.8%)".
std::string comparedSummary(const ComparedRows& rows, const OverlayReport& overlay, TimeUnit unit);

} // namespace stagecraft
