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
/// How the last column of a text table is laid out.
enum class LastColumn : unsigned char {
    Number, ///< right-aligned, as every column but the first
    Text,   ///< left-aligned and not padded: notes of any length do not widen the other rows
};
/// Rows of cells as aligned columns, two spaces apart: the first column left-aligned, the others
/// right-aligned (numbers); the last as `last` says. No line ends in spaces.
std::string textTable(const std::vector<std::vector<std::string>>& rows,
                      LastColumn last = LastColumn::Number);

std::string reportsAsTable(const std::vector<ScheduleReport>& reports);
/// Per-device lines for one schedule: busy, idle and its causes, peak memory.
std::string deviceBreakdown(const ScheduleReport& report);

} // namespace stagecraft::cli
