#pragma once
// Lowered programs as JSON, for runtimes and tools that do not parse the text listing:
// {"stagecraft_programs": 1, "name", "ranks", "pipes", "stages_per_pipe", "microbatches",
//  "split_backward", "placement": [[{"device", "chunk"}]], "buffers": [per pipe * stage],
//  "peak_buffers": [per rank], "collectives": [{"stage", "ranks"}], "matches": [[send rank,
//  send index, recv rank, recv index]], "programs": [{"rank", "instructions": [{"kind", ...}]}]}.
// An instruction carries only the fields its kind uses (docs/lowering.md); a compute B or W that
// is a half of one whole backward of a split program says `"whole_backward": true`.

#include "passes/program.h"

#include <string>

namespace stagecraft {

inline constexpr int kProgramsJsonVersion = 1;

std::string programsToJson(const Lowered& lowered);

} // namespace stagecraft
