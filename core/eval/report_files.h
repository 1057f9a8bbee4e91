#pragma once
// Metrics of one or more schedules as the files tools read: CSV (one row per schedule) and JSON
// (with per-device figures). `stagecraft-cli simulate --csv/--json` prints them and every export
// of .metrics.csv / .metrics.json writes them.

#include "eval/project_simulation.h"

#include <string>
#include <vector>

namespace stagecraft {

std::string reportsAsCsv(const std::vector<ScheduleReport>& reports);
std::string reportsAsJson(const std::vector<ScheduleReport>& reports);

} // namespace stagecraft
