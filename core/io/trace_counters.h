#pragma once
// The counter tracks of a Chrome trace ("ph": "C" events: memory per device, micro-batches in
// flight), which the timeline reader (chrome_trace.h) skips. Read with a SAX pass that keeps
// only the counters, from the file in blocks (json_stream.h's ByteSource), so a trace of any size
// costs one scan, one block and the counters' memory.

#include "io/chrome_trace.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

/// Counter tracks of a trace (object form or bare array), one per (pid, name) in order of first
/// appearance, their points in file order. A "C" event's value is the first number in its args;
/// events without a numeric pid, ts or value are skipped. Bad JSON is a ParseError("trace.json")
/// naming `source`.
std::vector<CounterTrack> parseTraceCounters(std::string_view text, const std::string& source);
std::vector<CounterTrack> readTraceCounters(const std::filesystem::path& path);

} // namespace stagecraft
