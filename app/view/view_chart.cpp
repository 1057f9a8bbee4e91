#include "view/view_chart.h"

#include "error.h"
#include "layout/chart_frame.h"
#include "layout/error_colors.h"
#include "sim/timeline_merge.h"

#include <algorithm>

namespace stagecraft::view {

std::string tracePanelTitle(const ViewSource& source) {
    std::string title =
        sourceName(source) + " · " + (source.trace ? source.trace->origin : std::string("trace"));
    if (source.trace && !source.trace->shape.schedule.empty()) title += " · " + source.trace->shape.schedule;
    if (source.traceInfo.iterations > 1)
        title += " · iteration " + std::to_string(source.traceInfo.iteration) + " of " +
                 std::to_string(source.traceInfo.iterations);
    return title;
}

namespace {

/// A prediction's panel: its timeline and report, its memory curves per device.
ViewPanel predictionPanel(std::size_t source, int outcome, const ScheduleOutcome& out) {
    ViewPanel p;
    p.source = source;
    p.outcome = outcome;
    p.timeline = &out.prediction.timeline;
    p.prediction = &out.prediction;
    p.title = out.title;
    p.unitless = out.prediction.report.unitless;
    for (const DeviceMemory& d : out.prediction.report.memory.devices)
        p.memory.emplace_back(std::span<const std::pair<double, double>>(d.curve));
    p.memoryUnit = p.unitless ? "M_a" : "GiB";
    p.memoryScale = p.unitless ? 1.0 : double(1ull << 30);
    return p;
}

/// A trace panel's memory per device: the memory counters of its files (the writer's
/// "memory (GiB)"), else their first counter.
void traceMemory(ViewPanel& p, const std::vector<ViewSource>& sources,
                 const std::vector<std::size_t>& group) {
    std::vector<const CounterTrack*> counters;
    for (std::size_t g : group)
        for (const CounterTrack& c : sources[g].counters) counters.push_back(&c);
    std::string name;
    for (const CounterTrack* c : counters)
        if (c->name.find("memory") != std::string::npos) name = c->name;
    if (name.empty() && !counters.empty()) name = counters.front()->name;
    for (const CounterTrack* c : counters) {
        if (c->name != name || c->device < 0 || c->device > 4096) continue;
        if (std::size_t(c->device) >= p.memory.size()) p.memory.resize(std::size_t(c->device) + 1);
        p.memory[std::size_t(c->device)] = CounterSeries(c->points);
    }
    p.memoryUnit = name.find("GiB") != std::string::npos ? "GiB" : name;
}

bool loadedTrace(const ViewSource& source) {
    return source.error.empty() && source.trace;
}

} // namespace

void ViewChart::build(const std::vector<ViewSource>& sources, const ViewChartOptions& options) {
    m_panels.clear();
    m_chartPanels.clear();
    m_dependencies.clear();
    m_merged.clear();
    m_compared.clear();
    m_rows = ChartRows{};
    m_frame = ChartFrame{};
    m_content = ChartContent{};
    for (std::size_t s = 0; s < sources.size(); ++s)
        if (sources[s].error.empty() && sources[s].analysis)
            for (std::size_t o = 0; o < sources[s].analysis->outcomes.size(); ++o)
                m_panels.push_back(predictionPanel(s, int(o), sources[s].analysis->outcomes[o]));
    addTraces(sources);
    // Unit costs read as units only when nothing else is shown (every panel a prediction in
    // units); mixed charts are in µs.
    const bool unitless = std::all_of(m_panels.begin(), m_panels.end(),
                                      [](const ViewPanel& p) { return p.prediction && p.unitless; });
    pairTraces(sources);
    orderPanels();
    if (options.measuredRows == MeasuredRows::UnderPredicted) pairRows();
    for (const ViewPanel& p : m_panels) {
        ChartPanel cp;
        cp.timeline = p.timeline;
        cp.title = p.title;
        if (p.compared) {
            cp.compared = p.compared;
            cp.subtitle = comparedSummary(*p.compared, *p.overlay,
                                          p.unitless ? TimeUnit::Units : TimeUnit::Microseconds);
        }
        m_chartPanels.push_back(cp);
    }
    if (m_panels.empty()) return;
    m_options = ChartOptions{};
    m_options.palette = options.palette;
    m_options.showComm = options.showComm;
    m_options.tooltips = false;                 // hover text is built from the event under the cursor
    m_options.minLabelSize = kMinScreenLabelPt; // a label shrunk for print is unreadable on screen
    m_options.timeUnit = unitless ? TimeUnit::Units : TimeUnit::Microseconds;
    m_options.widthPt = 800;
    m_content = scanChart(m_chartPanels, m_options);
    m_rows = ChartRows(m_chartPanels, m_content);
}

void ViewChart::addTraces(const std::vector<ViewSource>& sources) {
    // Per-rank files of one run (same shape, each device in one file) become one panel.
    std::vector<bool> grouped(sources.size(), false);
    for (std::size_t s = 0; s < sources.size(); ++s) {
        if (!loadedTrace(sources[s]) || grouped[s]) continue;
        std::vector<std::size_t> group{s};
        std::vector<const Timeline*> parts{sources[s].trace.get()};
        std::optional<Timeline> merged;
        for (std::size_t o = s + 1; o < sources.size(); ++o) {
            if (!loadedTrace(sources[o]) || grouped[o]) continue;
            parts.push_back(sources[o].trace.get());
            if (auto m = mergeRankTimelines(parts)) {
                merged = std::move(m);
                group.push_back(o);
            } else {
                parts.pop_back();
            }
        }
        for (std::size_t g : group) grouped[g] = true;
        ViewPanel p;
        p.source = s;
        if (merged) {
            m_merged.push_back(std::make_unique<Timeline>(std::move(*merged)));
            p.timeline = m_merged.back().get();
            std::string names;
            for (std::size_t g : group) names += (names.empty() ? "" : " + ") + sourceName(sources[g]);
            p.title =
                names + " · " + p.timeline->origin + " · " + p.timeline->shape.schedule + " (per-rank files)";
        } else {
            p.timeline = sources[s].trace.get();
            p.title = tracePanelTitle(sources[s]);
        }
        p.busy = measureTimelineBusy(*p.timeline);
        traceMemory(p, sources, group);
        m_panels.push_back(std::move(p));
    }
}

void ViewChart::pairTraces(const std::vector<ViewSource>& sources) {
    // Every trace with its prediction by eval's rule (matchTraceOutcome: the schedule it names,
    // else the first of its shape, else the one prediction), as the app and the CLI pair a trace
    // with a project's schedules.
    for (std::size_t t = 0; t < m_panels.size(); ++t) {
        if (m_panels[t].prediction) continue;
        std::vector<std::size_t> panelOf;
        std::vector<const ScheduleOutcome*> candidates;
        for (std::size_t p = 0; p < m_panels.size(); ++p) {
            const ViewPanel& pred = m_panels[p];
            if (!pred.prediction || pred.partner >= 0) continue;
            panelOf.push_back(p);
            candidates.push_back(&sources[pred.source].analysis->outcomes[std::size_t(pred.outcome)]);
        }
        const TraceMatch match = matchTraceOutcome(*m_panels[t].timeline, candidates);
        if (!match.outcome) {
            m_panels[t].matchNote = candidates.empty() ? std::string() : match.error;
            continue;
        }
        try {
            pair(panelOf[*match.outcome], t);
        } catch (const Error& e) {
            m_panels[t].matchNote = e.message();
        }
    }
}

void ViewChart::pair(std::size_t predicted, std::size_t trace) {
    ViewPanel& pred = m_panels[predicted];
    ViewPanel& measured = m_panels[trace];
    auto report = std::make_shared<const OverlayReport>(compareTimelines(*pred.timeline, *measured.timeline));
    pred.partner = int(trace);
    measured.partner = int(predicted);
    pred.overlay = measured.overlay = report;
    measured.counterpart = predictedEventOfMeasured(*report, measured.timeline->events.size());
    pred.counterpart.assign(pred.timeline->events.size(), -1);
    for (const OpDeviation& d : report->ops)
        if (d.predictedEvent < pred.counterpart.size())
            pred.counterpart[d.predictedEvent] = std::int32_t(d.measuredEvent);
    measured.matchNote.clear();
}

void ViewChart::orderPanels() {
    // Each prediction followed by its trace, unmatched panels in file order.
    std::vector<ViewPanel> ordered;
    std::vector<bool> placed(m_panels.size(), false);
    std::vector<int> newIndex(m_panels.size(), -1);
    auto place = [&](std::size_t i) {
        newIndex[i] = int(ordered.size());
        ordered.push_back(m_panels[i]);
        placed[i] = true;
    };
    for (std::size_t i = 0; i < m_panels.size(); ++i) {
        if (placed[i] || (!m_panels[i].prediction && m_panels[i].partner >= 0)) continue;
        place(i);
        const int partner = m_panels[i].partner;
        if (partner >= 0 && !placed[std::size_t(partner)]) place(std::size_t(partner));
    }
    for (ViewPanel& p : ordered)
        if (p.partner >= 0) p.partner = newIndex[std::size_t(p.partner)];
    m_panels = std::move(ordered);
}

void ViewChart::pairRows() {
    // Each prediction with a trace becomes one panel of core's paired rows; the trace's own panel
    // goes (its rows are in its prediction's now).
    std::vector<ViewPanel> kept;
    for (ViewPanel& p : m_panels) {
        if (p.partner < 0) {
            kept.push_back(std::move(p));
            continue;
        }
        if (!p.prediction) continue;
        const ViewPanel& trace = m_panels[std::size_t(p.partner)];
        m_compared.push_back(
            std::make_unique<ComparedRows>(compareRows(*p.timeline, *trace.timeline, *p.overlay)));
        p.compared = m_compared.back().get();
        p.timeline = &p.compared->timeline;
        p.title += " \u00b7 measured: " + trace.title;
        p.partner = -1;
        p.counterpart.clear();
        kept.push_back(std::move(p));
    }
    m_panels = std::move(kept);
}

void ViewChart::layout(double widthPt) {
    if (m_panels.empty()) return;
    m_options.widthPt = std::clamp(widthPt, 220.0, 100000.0);
    m_frame = layoutChartFrame(m_content, m_options);
}

const EventDependencies* ViewChart::dependencies(int panel) {
    if (panel < 0 || std::size_t(panel) >= m_panels.size() || !m_panels[std::size_t(panel)].prediction)
        return nullptr;
    auto& slot = m_dependencies[panel];
    if (!slot) slot = std::make_unique<EventDependencies>(*m_panels[std::size_t(panel)].prediction);
    return slot.get();
}

} // namespace stagecraft::view
