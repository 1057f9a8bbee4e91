#pragma once
// Reading older project formats: what a key of an earlier format means in the newest one.

#include "project/project.h"

#include <vector>

namespace stagecraft {

/// Format 1's `costs.chunk_stages` (written by calibrate: one override per stage of the schedule
/// it measured, in µs of that stage) as format 2's `costs.layers`: stage s of the S listed held
/// the layers splitLayers(model.layers, S) gives it. A backward calibrated whole (every w = 0) is
/// split by splitWholeBackward with kDefaultInputShare, so split schedules get a W, and the rule is
/// added to costs.note. The full-stage `costs.stages` that calibrate wrote beside them (their
/// sums, for one pp only) are dropped: the layers give every stage of every pp. Throws
/// ValidationError when the list does not name each stage 0..S-1 once, or the layers do not split
/// into S stages; the message says how to write costs.layers instead.
void convertChunkStages(Project& project, const std::vector<StageCostOverride>& chunkStages);

} // namespace stagecraft
