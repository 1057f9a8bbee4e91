#pragma once
// The search's charts as Scenes, in the style of the breadth-first paper's figures: efficiency
// (MFU) of the best configuration of each schedule against batch size per GPU, one line per
// schedule; and throughput against peak memory of every fitting configuration with the Pareto
// front marked. Markers carry the index of their result (SceneRect::event, kind "config") so a
// front end can open the configuration under a click.

#include "layout/scene.h"
#include "search/search.h"

#include <string>

namespace stagecraft {

/// SceneRect::kind of a result's marker.
inline constexpr const char* kSearchMarkerKind = "config";

enum class SearchChart { Efficiency, Memory, Both };

/// "efficiency", "memory", "both" (case-sensitive); throws ValidationError "search.space" otherwise.
SearchChart searchChartFromName(const std::string& name);

/// The chart(s) of `result` in palette `palette` ("paper" ...); `Both` puts them side by side,
/// each `plotWidthPt` wide. Throws ValidationError for an unknown palette or a too small width.
Scene buildSearchChart(const SearchResult& result, SearchChart which, const std::string& palette,
                       double plotWidthPt = 340);

/// The marker's tooltip and the CSV's label of a result: its configuration and numbers.
std::string searchTooltip(const ConfigResult& result);

} // namespace stagecraft
