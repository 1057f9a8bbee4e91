#pragma once
// A search's results as files and text: CSV (one row per fitting configuration, best first within
// each batch point), JSON (the points, the best per schedule, both Pareto fronts and every fitting
// configuration) and a short text table of the best configuration per schedule and batch point.

#include "search/search.h"

#include <string>

namespace stagecraft {

/// "breadth-first pp=8 dp=8 tp=1 m=8 v=4 b=1 ZeRO-3": one line naming a configuration.
std::string configLabel(const SearchConfig& config);

std::string searchToCsv(const SearchResult& result);
std::string searchToJson(const SearchResult& result);
/// The best configuration of each schedule at each batch point, fastest first, and the fronts.
std::string searchSummaryText(const SearchResult& result);
/// "no configuration of breadth-first fits the memory limit": the searched schedules without a
/// fitting configuration at any batch point, in words ("" when each has one).
std::string unfitSchedulesText(const SearchResult& result);

} // namespace stagecraft
