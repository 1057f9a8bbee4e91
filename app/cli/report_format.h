#pragma once
// Metrics of one or more schedules as a text table for people (simulate and compare); the CSV and
// JSON forms are core's (eval/report_files.h), which every exporter writes.

#include "eval/project_simulation.h"
#include "eval/report_files.h"

#include <string>
#include <vector>

namespace stagecraft::cli {

/// `value` with `decimals` digits after the point.
std::string fixed(double value, int decimals);
/// Rows of cells as aligned columns, two spaces apart: the first column left-aligned, the others
/// right-aligned (numbers).
std::string textTable(const std::vector<std::vector<std::string>>& rows);

std::string reportsAsTable(const std::vector<ScheduleReport>& reports);
/// Per-device lines for one schedule: busy, idle and its causes, peak memory.
std::string deviceBreakdown(const ScheduleReport& report);

} // namespace stagecraft::cli
