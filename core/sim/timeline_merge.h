#pragma once
// The per-rank traces of one run as one timeline: tools that profile each rank on its own (the
// PyTorch profiler, one file per rank) write one trace per device; a view stacks them as the run
// they are, and matches them against the prediction like a trace written whole.

#include "sim/timeline.h"

#include <optional>
#include <span>
#include <string>

namespace stagecraft {

/// One timeline of `parts` when they are parts of one run: the same shape, and every device's
/// events in one part only. Compute events come first (part by part, each part's in order, so
/// each device keeps its order), then every part's communication events; the origin is
/// "measured" when any part is. Otherwise nullopt, and `why` (when given) names the first part
/// that does not fit and the rule. Fewer than two parts: nullopt. Linear in events.
std::optional<Timeline> mergeRankTimelines(std::span<const Timeline* const> parts,
                                           std::string* why = nullptr);

} // namespace stagecraft
