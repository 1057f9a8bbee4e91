#pragma once
// What the Gantt view says about one bar: its tooltip text, and the bars it depends on and that
// depend on it (core's OpIndex resolves the dependencies; this maps ops to timeline events).

#include "ir/op_index.h"
#include "sim/timeline.h"

#include <QString>
#include <vector>

namespace stagecraft::gui {

/// "F · mb 3 · stage 5 · pipe 0 · device 1" and start/end/duration lines. `unitless` prints
/// times as units instead of µs.
QString describeEvent(const TimelineEvent& event, bool unitless);

/// Producers and consumers of compute events of one schedule's timeline, by event index.
class DependencyIndex {
  public:
    DependencyIndex(const Schedule& schedule, const Timeline& timeline);

    /// Events whose ops `event` waits for (at most two), empty for comm events.
    std::vector<int> producers(int event) const;
    /// Events whose ops wait for `event`'s op.
    std::vector<int> consumers(int event) const;

  private:
    int gidOf(int event) const;

    OpIndex m_index;
    const Timeline* m_timeline;
    std::vector<int> m_eventOfGid; ///< [gid] -> event index, -1 when not a compute event
};

} // namespace stagecraft::gui
