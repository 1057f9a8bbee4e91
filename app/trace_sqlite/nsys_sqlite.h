#pragma once
// Reader of Nsight Systems SQLite exports (`nsys export --type sqlite`): the NVTX ranges of table
// NVTX_EVENTS (push/pop and start/end ranges, names from `text` or the StringIds table through
// `textId`), grouped by process into ranks by core's nvtxRangesToRanks. Its own library so that
// core does not depend on SQLite; front ends pass it to core as a RankReader.

#include "io/measured_run.h"

#include <filesystem>
#include <vector>

namespace stagecraft {

/// Throws ParseError("trace.sqlite") for a file SQLite cannot open or that has no NVTX_EVENTS
/// table, ParseError("trace.event") for a range core refuses (see nvtxRangesToRanks).
std::vector<RankTrace> readNsysSqlite(const std::filesystem::path& path);

} // namespace stagecraft
