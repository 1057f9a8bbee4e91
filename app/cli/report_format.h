#pragma once
// Metrics of one or more schedules as a text table, CSV or JSON (simulate and compare).

#include "eval/project_simulation.h"

#include <string>
#include <vector>

namespace stagecraft::cli {

std::string reportsAsTable(const std::vector<ScheduleReport>& reports);
std::string reportsAsCsv(const std::vector<ScheduleReport>& reports);
std::string reportsAsJson(const std::vector<ScheduleReport>& reports);
/// Per-device lines for one schedule: busy, idle and its causes, peak memory.
std::string deviceBreakdown(const ScheduleReport& report);

} // namespace stagecraft::cli
