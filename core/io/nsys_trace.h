#pragma once
// Readers of Nsight Systems exports of pipeline runs: NVTX ranges named with torch action strings
// ("PP:2F0", "2F0") or in the zero-bubble/Megatron style ("F{mb}.{chunk}[.{seq}]"). This file
// holds what both export formats share and the reader of `nsys export --type json` (one JSON
// object per line); the reader of `nsys export --type sqlite` lives in its own library
// (app/trace_sqlite), so that core does not depend on SQLite. docs/overlay.md has the mapping.

#include "io/measured_run.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

/// One NVTX range as an export holds it: times in ns, the process from the global thread id.
struct NvtxRange {
    std::int64_t globalTid = 0; ///< Nsight's serialized id: process id in bits 24..47
    std::string name;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::uint32_t event = 0; ///< index in the export (line or row), for messages
};

/// The process id encoded in an Nsight global thread id.
std::int64_t nsysProcessOf(std::int64_t globalTid);

/// Groups the ranges named with pipeline actions by process, one RankTrace per process in
/// ascending process id (one report of a torchrun launch holds every rank), each with rank -1:
/// the order gives the ranks. Unrelated names are skipped; a "PP:" name that is not an action, or
/// a range that ends before it starts, is a ParseError("trace.event") naming `source`, the event
/// and the reason.
std::vector<RankTrace> nvtxRangesToRanks(const std::vector<NvtxRange>& ranges, const std::string& source);

/// `nsys export --type json`: one object per line; {"Type":59 or 60,"NvtxEvent":{"Timestamp":"ns",
/// "EndTimestamp":"ns","Text":"...","GlobalTid":"..."}} are read; "TextId" names a string of the
/// export's string table ({"data":[...]} line, or {"type":"String","id":..,"value":..} lines).
/// Bad JSON is a ParseError("trace.json") with the line. core/file_kind.h tells the format from its first
/// line.
std::vector<RankTrace> parseNsysJson(std::string_view text, const std::string& source);
std::vector<RankTrace> readNsysJson(const std::filesystem::path& path);

} // namespace stagecraft
