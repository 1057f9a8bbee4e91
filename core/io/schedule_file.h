#pragma once
// Schedule files by extension: ".csv" is torch.distributed.pipelining's compute-only CSV,
// ".json" is Stagecraft's own schedule JSON (see docs/schedule-files.md).

#include "io/torch_csv.h"
#include "ir/schedule.h"

#include <filesystem>

namespace stagecraft {

/// Reads and validates a schedule file; the extension (case-insensitive) picks the format and
/// any other extension is refused with ValidationError("schedule_file.extension"). `options`
/// apply to CSV files only. Errors name the file.
Schedule readScheduleFile(const std::filesystem::path& path, const TorchCsvOptions& options = {});

/// Writes `schedule` atomically in the format the extension names. When the schedule or the
/// extension is refused (a bidirectional schedule as .csv, an unknown extension) nothing is created.
void writeScheduleFile(const Schedule& schedule, const std::filesystem::path& path);

} // namespace stagecraft
