#pragma once
// Constant-time lookup from an op's identity to where it sits in a schedule. The validator, the
// simulator and every pass resolve data dependencies through it, which keeps them linear in the
// number of ops.

#include "ir/schedule.h"

#include <cstdint>
#include <vector>

namespace stagecraft {

/// Position of an op: device and index into that device's order.
struct OpRef {
    std::int32_t device = -1;
    std::int32_t index = -1;
    bool valid() const { return device >= 0; }
    friend bool operator==(const OpRef&, const OpRef&) = default;
};

/// Problems found while indexing (duplicates, ops outside the schedule's shape).
struct IndexProblem {
    OpRef where;
    std::string message;
};

class OpIndex {
public:
    /// Index every F/B/W op of `schedule`. Ops with an out-of-range identity and second
    /// occurrences of an op are not indexed; they are reported in `problems()`.
    explicit OpIndex(const Schedule& schedule);

    /// Where F/B/W of (pipe, stage, mb) sits; invalid when absent.
    OpRef find(OpKind kind, int pipe, int stage, int mb) const;
    /// The pipe micro-batch `mb` flows through (-1 when it has no op).
    int pipeOf(int mb) const { return m_mbPipe[static_cast<std::size_t>(mb)]; }
    /// Global position of an op (device offset + index), dense in 0..opCount-1.
    std::size_t globalId(OpRef ref) const { return m_deviceOffset[ref.device] + ref.index; }
    std::size_t opCount() const { return m_deviceOffset.back(); }
    const std::vector<IndexProblem>& problems() const { return m_problems; }

private:
    std::size_t slotOf(OpKind kind, int pipe, int stage, int mb) const;

    int m_pipes, m_stages, m_microbatches;
    std::vector<OpRef> m_slots;        // [kind F/B/W][pipe][stage][mb]
    std::vector<int> m_mbPipe;         // [mb]
    std::vector<std::size_t> m_deviceOffset;
    std::vector<IndexProblem> m_problems;
};

} // namespace stagecraft
