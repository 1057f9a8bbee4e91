#include "eval/chart_composition.h"

#include "file_io.h"
#include "layout/gantt_layout.h"
#include "layout/palette.h"
#include "layout/text_metrics.h"

#include <algorithm>
#include <cstdio>

namespace stagecraft {

bool isEventBar(const SceneRect& r) {
    return (r.role == RectRole::Op || r.role == RectRole::Comm) && r.event >= 0 && r.panel >= 0 &&
           r.kind != kMeasuredKind;
}

const char* measuredRowsName(MeasuredRows rows) {
    return rows == MeasuredRows::UnderPredicted ? "under-predicted" : "overlaid";
}

std::optional<MeasuredRows> parseMeasuredRows(std::string_view name) {
    if (name == "overlaid") return MeasuredRows::Overlaid;
    if (name == "under-predicted") return MeasuredRows::UnderPredicted;
    return std::nullopt;
}

namespace {

bool overlayDrawn(const AnalysisResult& result, const ChartSettings& settings) {
    return settings.overlay && result.overlay && result.measured &&
           result.overlay->outcome < result.outcomes.size();
}

} // namespace

ChartComposition composeChart(const AnalysisResult& result, const ChartSettings& settings) {
    ChartComposition chart;
    std::vector<ChartPanel>& panels = chart.panels;
    panels.reserve(result.outcomes.size());
    for (const ScheduleOutcome& o : result.outcomes) {
        ChartPanel panel;
        panel.timeline = &o.prediction.timeline;
        panel.title = o.title;
        const ScheduleReport& report = o.prediction.report;
        if (report.postValidation) {
            // Without a flush the iteration ends before the makespan the bars show: say so.
            const TimeUnit unit = report.unitless ? TimeUnit::Units : TimeUnit::Microseconds;
            const TimeAxis axis = niceTimeAxis(report.iterationUs, 1, unit);
            panel.subtitle = timelineSummary(o.prediction.timeline, unit) + " \u00B7 iteration " +
                             formatSignificant(report.iterationUs / axis.displayScale) +
                             (axis.unit.empty() ? "" : " " + axis.unit) + " (post-validation)";
        }
        panels.push_back(std::move(panel));
    }
    if (!overlayDrawn(result, settings)) return chart;
    const std::size_t o = result.overlay->outcome;
    const OverlayReport& report = result.overlay->report;
    if (settings.measuredRows == MeasuredRows::Overlaid) {
        panels[o].measured = result.measured.get();
        panels[o].overlay = &report;
        return chart;
    }
    const Prediction& prediction = result.outcomes[o].prediction;
    chart.compared =
        std::make_unique<ComparedRows>(compareRows(prediction.timeline, *result.measured, report));
    chart.comparedPanel = int(o);
    panels[o].timeline = &chart.compared->timeline;
    panels[o].compared = chart.compared.get();
    if (panels[o].subtitle.empty())
        panels[o].subtitle = comparedSummary(
            *chart.compared, report, prediction.report.unitless ? TimeUnit::Units : TimeUnit::Microseconds);
    return chart;
}

ChartOptions layoutOptions(const ChartSettings& settings, double widthPt) {
    ChartOptions options;
    options.palette = settings.palette;
    options.widthPt = widthPt;
    options.showComm = settings.showComm;
    options.legend = settings.legend;
    options.axis = settings.axis;
    options.labels = settings.labels;
    options.title = settings.title;
    options.subtitle = settings.subtitle;
    options.stepGrid = settings.unitTime;
    options.tooltips = settings.tooltips;
    options.timeStart = settings.timeStart;
    options.timeEnd = settings.timeEnd;
    return options;
}

ChartOptions chartOptions(const AnalysisResult& result, const ChartSettings& settings, double widthPt) {
    ChartOptions options = layoutOptions(settings, widthPt);
    if (result.outcomes.empty()) return options;
    options.timeUnit =
        result.outcomes.front().prediction.report.unitless ? TimeUnit::Units : TimeUnit::Microseconds;
    if (overlayDrawn(result, settings)) {
        // The axis must reach the measured end too, or late measured bars fall off the chart.
        options.timeEnd = 0;
        for (const ScheduleOutcome& other : result.outcomes)
            options.timeEnd = std::max(options.timeEnd, other.prediction.timeline.makespan());
        options.timeEnd = std::max(options.timeEnd, result.overlay->report.makespanMeasured);
        if (settings.timeEnd > 0) options.timeEnd = settings.timeEnd; // a time range cuts it
    }
    return options;
}

void appendChartNotes(Scene& scene, const AnalysisResult& result, const ChartSettings& settings) {
    // Notes under the chart: the measured overlay's key, then the cost assumptions (one line per
    // distinct setup; imported schedules share the project's).
    const Palette& pal = findPalette(settings.palette);
    bool grew = false;
    if (overlayDrawn(result, settings) && settings.measuredRows == MeasuredRows::UnderPredicted) {
        // Paired rows name themselves; the note says whose they are and the error, broken at
        // spaces to the chart's width like the cost line.
        const std::string file = fileNamesOf(result.measuredPath);
        char error[32];
        std::snprintf(error, sizeof error, "%+.1f%%", result.overlay->report.makespanError * 100);
        for (const std::string& part :
             wrapText("Measured (" + file +
                          ") under each device's prediction, aligned at the first op: "
                          "predicted makespan " +
                          error + " against the run",
                      pal.fontSize, scene.width - 2 * pal.margin)) {
            scene.height += pal.fontSize * 1.4;
            scene.texts.push_back({pal.margin, scene.height - pal.fontSize * 0.35, part, pal.fontSize,
                                   pal.text, TextAnchor::Start, false});
        }
        grew = true;
    } else if (overlayDrawn(result, settings)) {
        scene.height += pal.fontSize * 1.4;
        const double y = scene.height - pal.fontSize * 0.35;
        SceneRect swatch;
        swatch.x = pal.margin;
        swatch.y = y - pal.fontSize * 0.75;
        swatch.w = pal.fontSize * 1.6;
        swatch.h = pal.fontSize * 0.8;
        swatch.fill = Color{0, 0, 0, 0};
        swatch.stroke = Color{0xd6, 0x27, 0x28, 255};
        swatch.strokeWidth = 0.9;
        swatch.role = RectRole::Legend;
        scene.rects.push_back(swatch);
        const std::string file = fileNamesOf(result.measuredPath);
        char error[32];
        std::snprintf(error, sizeof error, "%+.1f%%", result.overlay->report.makespanError * 100);
        scene.texts.push_back({pal.margin + swatch.w + pal.fontSize * 0.5, y,
                               "measured (" + file +
                                   "), outlined by duration error (red slower, blue faster): predicted "
                                   "makespan " +
                                   error + " against the run",
                               pal.fontSize, pal.text, TextAnchor::Start, false});
        grew = true;
    }
    if (settings.costLine) {
        // One line per distinct cost text; the schedules that do not split the backward draw it as
        // one box of B+W, which the line names (B = 1 beside a box two units wide misleads).
        std::vector<std::string> lines;
        std::vector<std::string> fused;     // per line: titles of its fused-backward schedules
        std::vector<std::string> fusedTime; // per line: B + W
        for (const ScheduleOutcome& o : result.outcomes) {
            const CostSummary& costs = o.prediction.report.costs;
            if (costs.text.empty()) continue;
            const auto at = std::find(lines.begin(), lines.end(), costs.text);
            const std::size_t i = std::size_t(at - lines.begin());
            if (at == lines.end()) {
                lines.push_back(costs.text);
                fused.emplace_back();
                const double bw = costs.b + costs.w;
                fusedTime.push_back(durationText(bw, o.prediction.report.unitless));
            }
            if (!o.prediction.schedule.splitBackward) fused[i] += (fused[i].empty() ? "" : ", ") + o.title;
        }
        for (std::size_t i = 0; i < lines.size(); ++i)
            if (!fused[i].empty())
                lines[i] += "; backward not split in " + fused[i] + ": one box B+W = " + fusedTime[i];
        // Broken at spaces to the chart's width: nothing is clipped in a single-column figure.
        for (const std::string& line : lines)
            for (const std::string& part :
                 wrapText("Costs — " + line, pal.fontSize, scene.width - 2 * pal.margin)) {
                scene.height += pal.fontSize * 1.4;
                scene.texts.push_back({pal.margin, scene.height - pal.fontSize * 0.35, part, pal.fontSize,
                                       pal.mutedText, TextAnchor::Start, false});
                grew = true;
            }
    }
    if (grew) {
        scene.height += pal.margin * 0.5;
        for (SceneRect& r : scene.rects)
            if (r.role == RectRole::Background) r.h = scene.height;
    }
}

void applyUnitTime(AnalysisRequest& request) {
    request.project.costs.mode = CostMode::Unit;
    request.trace.reset();
}

void keepSchedules(AnalysisRequest& request, const std::vector<std::string>& names) {
    if (names.empty()) return;
    const auto named = [&](const std::string& name) {
        return std::find(names.begin(), names.end(), name) != names.end();
    };
    std::vector<std::string>& shown = request.project.schedules;
    shown.erase(std::remove_if(shown.begin(), shown.end(), [&](const std::string& s) { return !named(s); }),
                shown.end());
    for (ImportedSchedule& imported : request.imported)
        imported.checked = imported.checked && named(imported.name);
}

Scene buildChartScene(const AnalysisResult& result, const ChartSettings& settings, double widthPt) {
    if (result.outcomes.empty()) return Scene{};
    const ChartComposition chart = composeChart(result, settings);
    Scene scene = layoutGantt(chart.panels, chartOptions(result, settings, widthPt));
    appendChartNotes(scene, result, settings);
    return scene;
}

} // namespace stagecraft
