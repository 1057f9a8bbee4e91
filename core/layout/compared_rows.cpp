#include "layout/compared_rows.h"

#include "ir/op_name.h"

#include <algorithm>
#include <cmath>

namespace stagecraft {

ComparedRows compareRows(const Timeline& predicted, const Timeline& measured, const OverlayReport& overlay) {
    ComparedRows rows;
    rows.predicted = &predicted;
    rows.measured = &measured;
    rows.alignOffset = std::isfinite(overlay.alignOffset) ? overlay.alignOffset : 0.0;
    // Shapes read from files may say anything: twice the rows must stay an int.
    const int devices = std::clamp(predicted.shape.devices, 0, 1 << 20);
    rows.timeline.shape = predicted.shape;
    rows.timeline.shape.devices = 2 * devices;
    rows.timeline.origin = predicted.origin;
    rows.predictedCount = predicted.events.size();
    rows.measuredOf.assign(predicted.events.size(), -1);
    rows.predictedOf.assign(measured.events.size(), -1);
    for (const OpDeviation& d : overlay.ops)
        if (d.predictedEvent < predicted.events.size() && d.measuredEvent < measured.events.size()) {
            rows.measuredOf[d.predictedEvent] = std::int32_t(d.measuredEvent);
            rows.predictedOf[d.measuredEvent] = std::int32_t(d.predictedEvent);
        }
    rows.timeline.events.reserve(predicted.events.size() + measured.events.size());
    for (TimelineEvent e : predicted.events) {
        // Events the chart would not draw keep their place (and index) but stay off every row.
        e.device = e.device >= 0 && e.device < devices ? ComparedRows::predictedRow(e.device) : -1;
        e.peer = e.peer >= 0 && e.peer < devices ? ComparedRows::predictedRow(e.peer) : -1;
        rows.timeline.events.push_back(e);
    }
    for (TimelineEvent e : measured.events) {
        const bool drawable = e.device >= 0 && e.device < devices && std::isfinite(e.start) &&
                              std::isfinite(e.end) && e.end >= e.start;
        e.device = drawable ? ComparedRows::measuredRow(e.device) : -1;
        e.peer = e.peer >= 0 && e.peer < devices ? ComparedRows::measuredRow(e.peer) : -1;
        e.start -= rows.alignOffset;
        e.end -= rows.alignOffset;
        rows.timeline.events.push_back(e);
    }
    for (int d = 0; d < devices; ++d) {
        rows.rowLabels.push_back("D" + std::to_string(d) + " predicted");
        rows.rowLabels.push_back("measured");
    }
    return rows;
}

namespace {

struct TimeText {
    const TimeAxis& axis;
    std::string operator()(double t) const {
        return formatNumber(t / axis.displayScale) + (axis.unit.empty() ? "" : " " + axis.unit);
    }
    std::string signedText(double t) const { return (t >= 0 ? "+" : "\u2212") + (*this)(std::abs(t)); }
};

std::string spanText(const TimelineEvent& e, const TimeText& text) {
    return "starts " + text(e.start) + ", lasts " + text(e.duration());
}

std::string nameOf(const TimelineEvent& e, bool splitBackward) {
    std::string name = opName(e.op, splitBackward);
    if (e.lane != Lane::Comm) return name;
    std::string out = std::string(commKindName(e.comm)) + " of " + name;
    if (e.peer >= 0) out += " \u2192 D" + std::to_string(ComparedRows::deviceOfRow(e.peer));
    return out;
}

} // namespace

std::string comparedEventText(const ComparedRows& rows, std::size_t event, const TimeAxis& axis) {
    if (event >= rows.timeline.events.size()) return {};
    const TimeText text{axis};
    const TimelineEvent& e = rows.timeline.events[event];
    const bool measured = rows.isMeasured(event);
    const int device = ComparedRows::deviceOfRow(std::max(0, e.device));
    std::string out = nameOf(e, rows.timeline.shape.splitBackward) + " on D" + std::to_string(device) +
                      (measured ? ", measured" : ", predicted");
    // The counterpart on the other row, at aligned times too.
    const TimelineEvent* other = nullptr;
    if (measured) {
        const std::int32_t p = rows.predictedOf[rows.measuredEvent(event)];
        if (p >= 0) other = &rows.timeline.events[std::size_t(p)];
    } else if (event < rows.measuredOf.size() && rows.measuredOf[event] >= 0) {
        other = &rows.timeline.events[rows.rowEventOfMeasured(std::size_t(rows.measuredOf[event]))];
    }
    const TimelineEvent* m = measured ? &e : other;
    const TimelineEvent* p = measured ? other : &e;
    if (m) out += "\nmeasured: " + spanText(*m, text);
    if (p) out += "\npredicted: " + spanText(*p, text);
    if (m && p) {
        out += "\ndifference: starts " + text.signedText(m->start - p->start) + ", lasts " +
               text.signedText(m->duration() - p->duration());
        if (p->duration() > 0) {
            const double percent = 100.0 * (m->duration() - p->duration()) / p->duration();
            out +=
                " (" + std::string(percent >= 0 ? "+" : "\u2212") + formatNumber(std::abs(percent), 1) + "%)";
        }
    } else if (measured) {
        out += "\nonly measured: the prediction has no such op";
    } else {
        out += "\nonly predicted: the measurement has no such op";
    }
    return out;
}

std::string comparedSummary(const ComparedRows& rows, const OverlayReport& overlay, TimeUnit unit) {
    std::string text = rows.predicted ? timelineSummary(*rows.predicted, unit) : std::string();
    const TimeAxis axis = niceTimeAxis(overlay.makespanMeasured, 1, unit);
    text += " \u00b7 measured " + formatSignificant(overlay.makespanMeasured / axis.displayScale) +
            (axis.unit.empty() ? "" : " " + axis.unit) + " (predicted " +
            (overlay.makespanError >= 0 ? "+" : "\u2212") +
            formatNumber(std::abs(100.0 * overlay.makespanError), 1) + "%)";
    return text;
}

} // namespace stagecraft
