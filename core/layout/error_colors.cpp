#include "layout/error_colors.h"

#include "layout/palette.h"

#include <algorithm>
#include <cmath>

namespace stagecraft {
namespace {

constexpr Color kNeutral{176, 180, 186, 255};
constexpr Color kSlower{214, 39, 40, 255};  // red
constexpr Color kFaster{31, 119, 180, 255}; // blue
constexpr double kTolerance = 0.02;         // ±2 %: as predicted

} // namespace

Color durationErrorColor(double predicted, double measured) {
    if (!(predicted > 0) || !(measured > 0) || !std::isfinite(predicted) || !std::isfinite(measured))
        return kNeutral;
    const double ratio = measured / predicted;
    if (std::abs(ratio - 1.0) <= kTolerance) return kNeutral;
    const double t = std::min(1.0, std::abs(std::log2(ratio)) / std::log2(kErrorColorMaxRatio));
    // A floor so that any drift beyond the tolerance is visibly tinted.
    return mixColor(kNeutral, ratio > 1 ? kSlower : kFaster, 0.25 + 0.75 * t);
}

std::vector<std::int32_t> predictedEventOfMeasured(const OverlayReport& report, std::size_t measuredEvents) {
    std::vector<std::int32_t> out(measuredEvents, -1);
    for (const OpDeviation& d : report.ops)
        if (d.measuredEvent < measuredEvents) out[d.measuredEvent] = std::int32_t(d.predictedEvent);
    return out;
}

} // namespace stagecraft
