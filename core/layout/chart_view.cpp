#include "layout/chart_view.h"

#include "ir/op_name.h"
#include "layout/chart_frame.h"
#include "number_text.h"

#include <algorithm>
#include <cmath>

namespace stagecraft {

void ChartView::setFrame(const ChartFrame& frame, double zoom, double leftTime) {
    m_timeEnd = frame.timeEnd;
    m_plotWidth = frame.plotWidth;
    m_fit = frame.fitMapping();
    m_fit.minPxPerUs = m_fit.pxPerUs;
    m_fit.maxPxPerUs = m_fit.pxPerUs * kChartMaxZoom;
    TimeMapping m = m_fit;
    if (zoom > 0 && std::isfinite(zoom)) {
        m.pxPerUs = m_fit.pxPerUs * zoom;
        m.originTime = leftTime;
    }
    setMapping(m);
}

void ChartView::clear() {
    *this = ChartView{};
}

double ChartView::zoom() const {
    if (m_plotWidth <= 0 || m_timeEnd <= 0) return 1.0;
    // Exactly 1 at fit (the same division), so callers can compare with 1.
    const double fit = m_plotWidth / m_timeEnd;
    return m_mapping.pxPerUs == fit ? 1.0 : m_mapping.pxPerUs / fit;
}

void ChartView::setMapping(TimeMapping m) {
    if (m_plotWidth <= 0) return;
    m.xOffset = m_fit.xOffset;
    m.minPxPerUs = m_fit.minPxPerUs;
    m.maxPxPerUs = m_fit.maxPxPerUs;
    if (!(m.pxPerUs > 0) || !std::isfinite(m.pxPerUs)) m.pxPerUs = m_fit.pxPerUs;
    if (!std::isfinite(m.originTime)) m.originTime = 0;
    m.pxPerUs = std::clamp(m.pxPerUs, m.minPxPerUs, m.maxPxPerUs);
    if (std::abs(m.pxPerUs / m_fit.pxPerUs - 1) < 1e-12) m.pxPerUs = m_fit.pxPerUs; // fit is fit
    m_mapping = m.clampedTo(0, m_timeEnd, m_plotWidth);
}

bool ChartView::zoomAbout(double anchorX, double factor) {
    if (m_plotWidth <= 0 || !(factor > 0) || !std::isfinite(factor) || !std::isfinite(anchorX)) return false;
    setMapping(m_mapping.zoomedAbout(anchorX, factor));
    return true;
}

void ChartView::showSpan(double t0, double t1) {
    if (m_plotWidth <= 0 || !(t1 > t0) || !std::isfinite(t0) || !std::isfinite(t1)) return;
    TimeMapping m = m_mapping;
    m.pxPerUs = m_plotWidth / (t1 - t0);
    m.originTime = t0;
    setMapping(m);
}

void ChartView::setLeftTime(double t) {
    TimeMapping m = m_mapping;
    m.originTime = t;
    setMapping(m);
}

std::string eventTitle(const TimelineEvent& e, const TimelineShape& shape) {
    std::string name = opName(e.op, shape.splitBackward, shape.sequenceSlices);
    if (e.lane != Lane::Comm) return name;
    switch (e.comm) {
    case CommKind::Activation:
        return "Send activation of " + name;
    case CommKind::Gradient:
        return "Send gradient of " + name;
    case CommKind::Collective:
        return "Gradient all-reduce " + name;
    case CommKind::None:
        break;
    }
    return "Transfer of " + name;
}

std::string eventTimesText(const TimelineEvent& e, bool unitless) {
    const auto time = [&](double t) { return unitless ? unitsText(t) : durationText(t); };
    return "start " + time(e.start) + " · end " + time(e.end) + " · duration " + time(e.duration());
}

std::string eventHoverText(const TimelineEvent& e, const TimelineShape& shape, bool unitless) {
    std::string head = eventTitle(e, shape) + " · device " + std::to_string(e.device);
    if (e.peer >= 0) head += " → " + std::to_string(e.peer);
    return head + '\n' + eventTimesText(e, unitless);
}

} // namespace stagecraft
