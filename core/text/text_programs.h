#pragma once
// Lowered programs as text: the full listing (one line per instruction, the golden-file format
// of tests/data/golden/*_programs.txt and `stagecraft-cli lower`) and a compact per-rank comm
// view for `show --comm`.

#include "passes/program.h"

#include <string>

namespace stagecraft {

/// A header (shape, buffers per stage, peak buffers per rank), then every instruction as
/// "r1: RECV_F s0->s1 mb3 from r0 tag 7 slot 1 bytes 1", rank by rank.
std::string formatPrograms(const Lowered& lowered);

struct CommViewOptions {
    int maxInstructions = 0; ///< cut each rank's row after this many cells (0 = all)
};

/// One row per rank, one cell per instruction: compute ops by their labels ("F3", "B0b", "W2'",
/// "S" sync, "O" optimizer), sends as ">F3" with the peer ("F3>r1"), receives as "r0>F3", and the
/// transfers a runtime posts together in brackets: "[F3>r1 r1>B0]". A legend follows.
std::string formatCommView(const Lowered& lowered, const CommViewOptions& options = {});

} // namespace stagecraft
