#pragma once
// What a timeline view says about one bar, for every front end (the Qt chart, the ImGui viewer):
// the memory a device holds around an op, and the bars an op waits for and that wait for it.
// Dependencies come from the evaluation's kept op index, never from a rebuilt one.

#include "eval/project_simulation.h"
#include "ir/op_index.h"
#include "sim/memory_model.h"
#include "sim/timeline.h"

#include <memory>
#include <vector>

namespace stagecraft {

/// Memory of `device` just before time `t`: the curve's value before its changes at `t` (its
/// static memory before the first change; 0 for a device the report does not have).
/// Logarithmic in the curve's length.
double memoryBefore(const MemoryReport& memory, int device, double t);

/// Memory of the event's device right after the op ends: what it held while the op ran, less
/// what the op frees at its end (B, W), before the next op allocates. The curve alone cannot
/// tell these apart when the next op starts at that instant, so the op's own change comes from
/// the memory inputs. 0 for events of no device.
double memoryAfterOp(const Prediction& prediction, const TimelineEvent& event);

/// Producers and consumers of the compute events of one prediction, by event index. Built in one
/// linear pass over the timeline; each query is proportional to its answer.
class EventDependencies {
  public:
    /// `prediction` must outlive this object (its timeline and op index are read, not copied).
    explicit EventDependencies(const Prediction& prediction);

    /// Events whose ops `event` waits for (at most two), empty for comm events.
    std::vector<int> producers(int event) const;
    /// Events whose ops wait for `event`'s op.
    std::vector<int> consumers(int event) const;

  private:
    int gidOf(int event) const;

    std::shared_ptr<const OpIndex> m_index;
    const Timeline* m_timeline;
    std::vector<int> m_eventOfGid;            ///< [gid] -> event index, -1 when not a compute event
    std::vector<std::size_t> m_consumerStart; ///< CSR offsets of consumers per gid
    std::vector<std::int32_t> m_consumers;    ///< consumer gids
};

} // namespace stagecraft
