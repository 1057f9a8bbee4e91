#pragma once
// Stagecraft's own schedule file: everything the schedule IR holds (two pipes, gradient syncs,
// optimizer steps, the placement with its chunks), so parse(write(s)) == s for every schedule.
// The format and the op grammar are described in docs/schedule-files.md.

#include "ir/schedule.h"

#include <string>
#include <string_view>

namespace stagecraft {

/// The version written in "stagecraft_schedule" and the only one read.
inline constexpr int kScheduleJsonVersion = 1;

/// The schedule as JSON: {"stagecraft_schedule": 1, "name", "devices", "pipes",
/// "stages_per_pipe", "microbatches", "chunks_per_device", "split_backward",
/// "placement": [[{"device", "chunk"}, ...] per pipe], "order": [[op strings] per device]}, and
/// when the schedule has slots (ir/overlap.h) "overlapped": [the F heading each overlapped slot]
/// and "whole_backward": [the B of each whole backward].
std::string scheduleToJson(const Schedule& schedule);

/// Reads a schedule JSON. Malformed JSON throws ParseError("schedule_json.syntax") with line and
/// column; missing, mistyped or out-of-range fields throw ValidationError whose field is the JSON
/// path ("order[2][15]"); a schedule that fails the validator throws
/// ValidationError("schedule_json.schedule") naming the device and position ("order[1][7]").
Schedule parseScheduleJson(std::string_view text, const std::string& source);

/// How parseScheduleJson reads the text: op lists packed in one pass where that applies (the
/// default), or always as a whole JSON document (for tests and the fuzz target, which check that
/// both agree).
enum class ScheduleJsonPass { Packed, Document };
Schedule parseScheduleJson(std::string_view text, const std::string& source, ScheduleJsonPass pass);

} // namespace stagecraft
