#pragma once
// Constant-time lookup from an op's identity to where it sits in a schedule. The validator, the
// simulator and every pass resolve data dependencies through it, which keeps them linear in the
// number of ops.

#include "ir/schedule.h"

#include <cstdint>
#include <string>
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

/// The producers of one op as global ids (see OpIndex::globalId): at most two for F/B/W/R.
struct OpDeps {
    static constexpr std::int32_t kNone = -1;    ///< no producer in this slot
    static constexpr std::int32_t kMissing = -2; ///< a producer the schedule does not contain
    std::int32_t first = kNone;
    std::int32_t second = kNone;
};

class OpIndex {
  public:
    /// Index every F/B/W/R op of `schedule`. Ops with an out-of-range identity and second
    /// occurrences of an op are not indexed; they are reported in `problems()`.
    explicit OpIndex(const Schedule& schedule);

    /// Where F/B/W/R of (pipe, stage, mb) sits; invalid when absent.
    OpRef find(OpKind kind, int pipe, int stage, int mb) const;
    /// True when the schedule recomputes (pipe, stage, mb): it has an R for it. The identity must
    /// be in range (the index's shape).
    bool recomputed(int pipe, int stage, int mb) const;
    /// The pipe micro-batch `mb` flows through (-1 when it has no op).
    int pipeOf(int mb) const { return m_mbPipe[static_cast<std::size_t>(mb)]; }
    /// Global position of an op (device offset + index), dense in 0..opCount-1.
    std::size_t globalId(OpRef ref) const { return m_deviceOffset[ref.device] + ref.index; }
    std::size_t opCount() const { return m_deviceOffset.back(); }
    const std::vector<IndexProblem>& problems() const { return m_problems; }
    /// Where global id `gid` sits.
    OpRef refOf(std::size_t gid) const {
        const std::int32_t device = m_deviceOf[gid];
        return {device, std::int32_t(gid - m_deviceOffset[std::size_t(device)])};
    }
    /// The device that runs global id `gid`.
    int deviceOf(std::size_t gid) const { return m_deviceOf[gid]; }
    /// Producers of the op with global id `gid` (data dependencies of F/B/W; none for others),
    /// resolved once when the index is built so every pass reads them in O(1).
    const OpDeps& depsOf(std::size_t gid) const { return m_deps[gid]; }
    /// How many resolved dependencies cross devices (producer on another device than its
    /// consumer): the pipeline transfers of one iteration.
    std::size_t crossDeviceDependencies() const { return m_crossDevice; }

  private:
    std::size_t slotOf(OpKind kind, int pipe, int stage, int mb) const;
    void resolveDependencies(const Schedule& schedule);

    std::size_t kindStride() const { return std::size_t(m_pipes) * m_stages * m_microbatches; }

    int m_pipes, m_stages, m_microbatches;
    int m_kinds = 3;                      // kinds with slots: F, B (W, R when the schedule has any)
    std::vector<std::int32_t> m_slots;    // [kind F/B/W/R][pipe][stage][mb] -> global id, -1 absent
    std::vector<std::int32_t> m_deviceOf; // [gid]
    std::vector<int> m_mbPipe;            // [mb]
    std::vector<std::size_t> m_deviceOffset;
    std::vector<IndexProblem> m_problems;
    std::vector<OpDeps> m_deps; // [gid]
    std::size_t m_crossDevice = 0;
};

} // namespace stagecraft
