#include "gui/models/memory_curves.h"

#include <algorithm>
#include <cstddef>

namespace stagecraft::gui {

namespace {

/// Appends (x, y) unless it is the last point already.
void appendPoint(QList<QPointF>& points, double x, double y) {
    if (points.isEmpty() || points.back() != QPointF(x, y)) points.append(QPointF(x, y));
}

} // namespace

double memoryTimeEnd(const ScheduleOutcome& outcome) {
    // The report's makespan is the timeline's (the last end), found once by the simulation;
    // Timeline::makespan() would read every event again.
    const double makespan = outcome.prediction.report.time.makespan;
    return std::max(1e-9, makespan > 0 ? makespan : outcome.prediction.timeline.makespan());
}

double memoryTimeScale(const ScheduleOutcome& outcome) {
    return outcome.prediction.report.unitless ? 1.0 : 1e-3;
}

double memoryValueScale(const ScheduleOutcome& outcome) {
    return outcome.prediction.report.unitless ? 1.0 : 1.0 / (1024.0 * 1024 * 1024);
}

QList<QPointF> memoryStepPoints(const std::vector<std::pair<double, double>>& curve, double end,
                                double timeScale, double valueScale, int columns) {
    QList<QPointF> points;
    if (curve.empty()) return points;
    const std::size_t n = curve.size();
    double held = curve.front().second; // in force from 0
    if (n < 2 * std::size_t(columns)) { // 2n + 2 points: within the columns' 4 per column
        points.reserve(qsizetype(2 * n + 2));
        points.append(QPointF(0, held * valueScale));
        for (const auto& [t, bytes] : curve) {
            points.append(QPointF(t * timeScale, held * valueScale));
            held = bytes;
            points.append(QPointF(t * timeScale, held * valueScale));
        }
        points.append(QPointF(end * timeScale, held * valueScale));
        return points;
    }
    // Per column, the value it enters with, its highest, its lowest and the value it leaves with,
    // all at its left edge: a vertical stroke as wide as a pixel, then the level to the next.
    points.reserve(4 * columns + 1);
    std::size_t i = 0;
    for (int c = 0; c < columns; ++c) {
        const double x = end * c / columns * timeScale;
        const bool last = c + 1 == columns; // takes every change left, those at `end` too
        const double t1 = end * (c + 1) / columns;
        const double in = held;
        double high = held, low = held;
        for (; i < n && (last || curve[i].first < t1); ++i) {
            held = curve[i].second;
            high = std::max(high, held);
            low = std::min(low, held);
        }
        for (const double y : {in, high, low, held}) appendPoint(points, x, y * valueScale);
    }
    appendPoint(points, end * timeScale, held * valueScale);
    return points;
}

MemoryCurves buildMemoryCurves(const ScheduleOutcome& outcome) {
    MemoryCurves curves;
    const double end = memoryTimeEnd(outcome);
    const double timeScale = memoryTimeScale(outcome), valueScale = memoryValueScale(outcome);
    for (const DeviceMemory& d : outcome.prediction.report.memory.devices)
        curves.devices.push_back(memoryStepPoints(d.curve, end, timeScale, valueScale));
    return curves;
}

std::shared_ptr<const PreparedMemory> prepareMemory(const AnalysisResult& result) {
    auto prepared = std::make_shared<PreparedMemory>();
    prepared->reserve(result.outcomes.size());
    for (const ScheduleOutcome& o : result.outcomes) prepared->push_back(buildMemoryCurves(o));
    return prepared;
}

} // namespace stagecraft::gui
