#pragma once
// The side panel: the files and what went wrong with them, each panel's key figures (makespan,
// bubble, per-device busy time; for a paired trace the error against its prediction), the search
// box (core's findTimelineOps), and the selected op.

#include "view/timeline_view.h"
#include "view/view_chart.h"
#include "view/view_sources.h"

#include <string>
#include <vector>

namespace stagecraft::view {

class SidePanel {
  public:
    /// Draws the panel; true when the user switched `measuredRows` (the chart must be rebuilt).
    bool draw(const std::vector<ViewSource>& sources, ViewChart& chart, TimelineView& view, float width,
              double frameMs, MeasuredRows& measuredRows);
    /// Runs a search as if typed, and jumps to the first hit (--search).
    void search(const std::string& query, ViewChart& chart, TimelineView& view);

  private:
    void runSearch(ViewChart& chart, TimelineView& view);
    void drawMetrics(const ViewChart& chart, int panel) const;

    char m_query[64] = {};
    std::vector<std::pair<int, std::size_t>> m_hits; ///< (panel, event)
    std::size_t m_current = 0;
    std::string m_searchNote;
};

} // namespace stagecraft::view
