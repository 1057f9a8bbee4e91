#pragma once
// Finding ops in a timeline by what people type: a torch action string ("3B17": stage 3,
// backward, micro-batch 17; "p1:0F2" on the second pipe) or a chart label without the stage
// ("B17": that op on every stage). Every front end's search box (the viewer's, the GUI's) calls
// this one function, so a query means the same thing everywhere.

#include "sim/timeline.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

/// Compute events of `timeline` that `query` names, in start order (ties: event order). Accepted
/// (blanks around the text ignored, kind letters in either case):
///   - an op name as every front end prints it (opName, ir/op_name.h): "STAGE KIND MB" with an
///     optional "pN:" pipe prefix, where I and B both name the backward op (B), so "3I17" finds it
///     in a split schedule and "3B17" in either; "2SYNC", "p1:0OPT" for one stage's sync or step;
///   - "KIND MB" (F, B, I, W) for that op on every stage and pipe;
///   - "S" / "GradSync" and "O" / "Optimizer" for every gradient sync / optimizer step.
/// On a sequence-sliced timeline (Seq1F1B, TeraPipe) a micro-batch names all its slices, and
/// ".SLICE" one of them: "3F2.1", "F2.1".
/// Anything else finds nothing, and `why` (when given) says what the query should look like.
/// Linear in events.
std::vector<std::size_t> findTimelineOps(const Timeline& timeline, std::string_view query,
                                         std::string* why = nullptr);

} // namespace stagecraft
