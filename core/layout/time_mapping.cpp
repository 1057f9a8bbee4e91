#include "layout/time_mapping.h"

#include "error.h"
#include "layout/chart_common.h"

#include <algorithm>
#include <cmath>

namespace stagecraft {

TimeMapping TimeMapping::fit(double t0, double t1, double x0, double width) {
    if (!std::isfinite(t0) || !std::isfinite(t1) || !(t1 > t0) || !std::isfinite(x0) ||
        !std::isfinite(width) || !(width > 0))
        throw ValidationError("chart.mapping", "fit",
                              "cannot fit times " + formatNumber(t0) + ".." + formatNumber(t1) +
                                  " into width " + formatNumber(width) +
                                  ": the times must be increasing and the width positive");
    TimeMapping m;
    m.originTime = t0;
    m.xOffset = x0;
    m.pxPerUs = width / (t1 - t0);
    return m;
}

TimeMapping TimeMapping::zoomedAbout(double anchorX, double factor) const {
    if (!std::isfinite(factor) || !(factor > 0) || !std::isfinite(anchorX))
        throw ValidationError("chart.mapping", "zoom",
                              "zoom factor " + formatNumber(factor) + " about x " + formatNumber(anchorX) +
                                  ": the factor must be positive and both finite");
    const double anchorTime = xToTime(anchorX);
    TimeMapping m = *this;
    m.pxPerUs = std::clamp(pxPerUs * factor, minPxPerUs, std::max(minPxPerUs, maxPxPerUs));
    if (!(m.pxPerUs > 0) || !std::isfinite(m.pxPerUs)) m.pxPerUs = pxPerUs; // under/overflow: stay
    m.originTime = anchorTime - (anchorX - xOffset) / m.pxPerUs;
    return m;
}

TimeMapping TimeMapping::panned(double dx) const {
    TimeMapping m = *this;
    m.originTime -= dx / pxPerUs;
    return m;
}

TimeMapping TimeMapping::clampedTo(double t0, double t1, double width) const {
    TimeMapping m = *this;
    const double last = std::max(t0, t1 - width / pxPerUs);
    m.originTime = std::clamp(originTime, t0, last);
    return m;
}

} // namespace stagecraft
