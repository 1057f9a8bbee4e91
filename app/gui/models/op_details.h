#pragma once
// What the Gantt view says about one bar: its tooltip text, and the bars it depends on and that
// depend on it (core's OpIndex resolves the dependencies; this maps ops to timeline events).

#include "ir/op_index.h"
#include "sim/memory_model.h"
#include "sim/project_simulation.h"
#include "sim/timeline.h"

#include <QString>
#include <vector>

namespace stagecraft::gui {

/// "F · mb 3 · stage 5 · pipe 0 · device 1" and start/end/duration lines. `unitless` prints
/// times as units instead of µs.
QString describeEvent(const TimelineEvent& event, bool unitless);

/// Memory of `device` just before time `t`: the curve's value before its changes at `t` (its
/// static memory before the first change; 0 for a device the report does not have).
/// Logarithmic in the curve's length.
double memoryBefore(const MemoryReport& memory, int device, double t);

/// Memory of the event's device right after the op ends: what it held while the op ran, less
/// what the op frees at its end (B, W), before the next op allocates. The curve alone cannot
/// tell these apart when the next op starts at that instant, so the op's own change comes from
/// the memory inputs. 0 for events of no device.
double memoryAfterOp(const Prediction& prediction, const TimelineEvent& event);

/// "memory after: 12.3 GiB" ("memory after: 3 × M_a" in unit mode).
QString memoryAfterText(const Prediction& prediction, const TimelineEvent& event);

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
