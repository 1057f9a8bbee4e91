#pragma once
// The viewer's chart: every loaded file's timelines as panels of core's windowed chart
// (chart_frame.h + chart_rows.h), stacked on one time axis. A measured trace that matches a
// shown prediction (eval's matchTraceOutcome, as the app and CLI pair them) is paired with it: its bars are
// coloured by their duration error (core's durationErrorColor) and hovering either names its counterpart; or,
// with MeasuredRows::UnderPredicted, the two become one panel of core's paired rows (compared_rows.h): each
// device's measured row directly under its predicted row, as the app and the exports draw them. Layout,
// folding and hit-testing are core's; this only decides which timelines are panels.

#include "eval/chart_composition.h"
#include "eval/evaluation.h"
#include "eval/op_inspect.h"
#include "layout/chart_frame.h"
#include "layout/chart_rows.h"
#include "layout/compared_rows.h"
#include "layout/counter_series.h"
#include "sim/overlay.h"
#include "sim/timeline_busy.h"
#include "view/view_sources.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace stagecraft::view {

struct ViewPanel {
    std::size_t source = 0;
    int outcome = -1; ///< index into the source's outcomes; -1 for a trace
    const Timeline* timeline = nullptr;
    const Prediction* prediction = nullptr; ///< schedules and projects
    std::string title;
    bool unitless = false;
    /// A prediction drawn with its trace's rows under its own (MeasuredRows::UnderPredicted):
    /// `timeline` is compared->timeline, whose first events are the prediction's at their own
    /// indices; `partner` is -1 then (the trace has no panel of its own).
    const ComparedRows* compared = nullptr;
    /// The panel it is paired with (a trace with its prediction and back), -1 when none.
    int partner = -1;
    std::shared_ptr<const OverlayReport> overlay; ///< compareTimelines(prediction, trace), both sides
    std::vector<std::int32_t> counterpart;        ///< [event] -> the partner's event, -1
    TimelineBusy busy;                            ///< key figures for traces (predictions have their report)
    std::string matchNote;                        ///< why a trace matched nothing ("" when it did)
    /// Memory per device: a trace's memory counters, a prediction's memory curves (empty: none).
    std::vector<CounterSeries> memory;
    std::string memoryUnit; ///< "GiB", "M_a" ...
    double memoryScale = 1; ///< shown value = series value / memoryScale
};

struct ViewChartOptions {
    std::string palette = "paper";
    bool showComm = false;
    /// How a trace paired with a prediction is drawn: Overlaid, the viewer's own way (the trace
    /// as its own panel under its prediction, bars coloured by duration error), or UnderPredicted
    /// (one panel, each device's measured row under its predicted row).
    MeasuredRows measuredRows = MeasuredRows::Overlaid;
};

class ViewChart {
  public:
    /// Panels from `sources` (the ones that loaded), paired and indexed: linear in events.
    /// Throws stagecraft::Error when core's layout refuses the panels.
    void build(const std::vector<ViewSource>& sources, const ViewChartOptions& options);
    /// The frame for `widthPt` points (layoutChartFrame).
    void layout(double widthPt);

    bool empty() const { return m_panels.empty(); }
    const std::vector<ViewPanel>& panels() const { return m_panels; }
    const std::vector<ChartPanel>& chartPanels() const { return m_chartPanels; }
    const ChartRows& rows() const { return m_rows; }
    const ChartFrame& frame() const { return m_frame; }
    const ChartOptions& options() const { return m_options; }
    std::size_t eventCount() const { return m_rows.eventCount(); }

    /// Dependencies of a predicted panel's events, built on first use; null for traces.
    const EventDependencies* dependencies(int panel);

  private:
    /// A panel per trace, per-rank files of one run merged into one.
    void addTraces(const std::vector<ViewSource>& sources);
    /// Every trace with the prediction eval's matchTraceOutcome picks for it.
    void pairTraces(const std::vector<ViewSource>& sources);
    /// Panels `predicted` and `trace` paired: the overlay report and the events' counterparts.
    void pair(std::size_t predicted, std::size_t trace);
    /// Each prediction followed by its trace, unmatched panels in file order.
    void orderPanels();
    /// MeasuredRows::UnderPredicted: every paired prediction and trace into one panel.
    void pairRows();

    std::vector<ViewPanel> m_panels;
    std::vector<ChartPanel> m_chartPanels;
    ChartOptions m_options;
    ChartContent m_content;
    ChartRows m_rows;
    ChartFrame m_frame;
    std::map<int, std::unique_ptr<EventDependencies>> m_dependencies;
    std::vector<std::unique_ptr<Timeline>> m_merged;       ///< per-rank traces of one run, merged
    std::vector<std::unique_ptr<ComparedRows>> m_compared; ///< paired rows of UnderPredicted panels
};

/// Title of a trace panel: the file name, the schedule it holds and where it came from.
std::string tracePanelTitle(const ViewSource& source);

} // namespace stagecraft::view
