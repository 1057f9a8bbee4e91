#pragma once
// A timeline as Perfetto's native protobuf trace (`*.pftrace`): what Perfetto's UI and trace
// processor read directly, a fraction of the JSON trace's size and parse time, so exports of ten
// million ops and more stay usable (a JSON trace of that size takes minutes to load, when it loads).
// One process for the schedule, one thread track per device for its compute ops and one for its
// transfers and collectives; each op a slice named as every front end names it (`2B0`), times in
// ns. The encoding is written by hand from Perfetto's published trace_packet.proto (the fields used
// are listed in perfetto_trace.cpp): no protobuf library is needed.

#include "sim/timeline.h"

#include <filesystem>
#include <string>

namespace stagecraft {

/// The trace's bytes. Throws ValidationError("trace.write") for an event with a non-finite or
/// negative time, or one on a device outside the timeline's shape.
std::string timelineToPerfettoTrace(const Timeline& timeline, const std::string& title);

/// The same, written atomically.
void writePerfettoTrace(const Timeline& timeline, const std::filesystem::path& path,
                        const std::string& title);

} // namespace stagecraft
