#pragma once
// Colours of a measured op by how far it departs from its prediction, for views that draw a
// measured trace matched to its schedule (compareTimelines): a diverging scale from blue
// (faster than predicted) through grey (as predicted) to red (slower), so drift reads at a
// glance whatever the op's kind. One scale for every front end and every palette.

#include "layout/scene.h"
#include "sim/overlay.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stagecraft {

/// Ratios at or beyond these saturate the scale: twice as slow is full red, half as long full blue.
inline constexpr double kErrorColorMaxRatio = 2.0;

/// Colour of an op that took `measured` µs where `predicted` were expected. A ratio within ±2 %
/// is the neutral grey; beyond, the hue deepens with |log2(ratio)| up to kErrorColorMaxRatio.
/// A non-positive or non-finite duration gives the neutral grey.
Color durationErrorColor(double predicted, double measured);

/// For each of `measuredEvents` events of the measured timeline, the index of the predicted event
/// it matched in `report`, or -1. Entries out of range are ignored.
std::vector<std::int32_t> predictedEventOfMeasured(const OverlayReport& report, std::size_t measuredEvents);

} // namespace stagecraft
