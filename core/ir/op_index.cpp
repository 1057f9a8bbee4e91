#include "ir/op_index.h"

#include "ir/large_array.h"
#include "ir/op_name.h"
#include "ir/stage_flow.h"

#include <algorithm>

namespace stagecraft {

OpIndex::OpIndex(const Schedule& schedule)
    : m_pipes(schedule.pipes), m_stages(schedule.stagesPerPipe), m_microbatches(schedule.microbatches) {
    // W's slots only where W can occur: a schedule that does not split its backward has none
    // (2 instead of 3 slots per (pipe, stage, micro-batch)), unless it is malformed; R's slots
    // only once the schedule has a recompute.
    m_kinds = schedule.splitBackward ? 3 : 2;
    assignLarge(m_slots, std::size_t(m_kinds) * kindStride(), std::int32_t(-1));
    m_mbPipe.assign(static_cast<std::size_t>(m_microbatches), -1);
    m_deviceOffset.assign(schedule.order.size() + 1, 0);
    for (std::size_t d = 0; d < schedule.order.size(); ++d)
        m_deviceOffset[d + 1] = m_deviceOffset[d] + schedule.order[d].size();
    assignLarge(m_deviceOf, opCount(), std::int32_t(0));

    for (std::size_t d = 0; d < schedule.order.size(); ++d) {
        const auto& ops = schedule.order[d];
        const std::size_t offset = m_deviceOffset[d];
        std::fill(m_deviceOf.begin() + std::ptrdiff_t(offset),
                  m_deviceOf.begin() + std::ptrdiff_t(offset + ops.size()), std::int32_t(d));
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const Op& op = ops[i];
            const OpRef here{static_cast<std::int32_t>(d), static_cast<std::int32_t>(i)};
            if (op.pipe >= m_pipes || op.stage < 0 || op.stage >= m_stages) {
                m_problems.push_back({here, opName(op, schedule.splitBackward, schedule.sequenceSlices) +
                                                " names stage " + std::to_string(op.stage) + " of pipe " +
                                                std::to_string(op.pipe) + ", but the schedule has " +
                                                std::to_string(m_pipes) + " pipe(s) of " +
                                                std::to_string(m_stages) + " stages"});
                continue;
            }
            if (!isComputeKind(op.kind)) continue;
            if (op.mb < 0 || op.mb >= m_microbatches) {
                m_problems.push_back({here, opName(op, schedule.splitBackward, schedule.sequenceSlices) +
                                                " names micro-batch " + std::to_string(op.mb) +
                                                ", outside 0.." + std::to_string(m_microbatches - 1)});
                continue;
            }
            if (computeSlot(op.kind) >= m_kinds) {
                // A W in a schedule that does not split its backward, or the first R: indexed like
                // any other (slots grow to the kind's, the earlier kinds keep theirs).
                m_kinds = computeSlot(op.kind) + 1;
                m_slots.resize(std::size_t(m_kinds) * kindStride(), std::int32_t(-1));
            }
            int& pipe = m_mbPipe[static_cast<std::size_t>(op.mb)];
            if (pipe < 0) pipe = op.pipe;
            if (pipe != op.pipe) {
                m_problems.push_back({here, opName(op, schedule.splitBackward, schedule.sequenceSlices) +
                                                ": micro-batch " + std::to_string(op.mb) +
                                                " already flows through pipe " + std::to_string(pipe) +
                                                "; a micro-batch uses one pipe"});
                continue;
            }
            std::int32_t& slot = m_slots[slotOf(op.kind, op.pipe, op.stage, op.mb)];
            if (slot >= 0) {
                const OpRef first = refOf(std::size_t(slot));
                m_problems.push_back({here, opName(op, schedule.splitBackward, schedule.sequenceSlices) +
                                                " appears twice: first on device " +
                                                std::to_string(first.device) + " at position " +
                                                std::to_string(first.index)});
                continue;
            }
            slot = std::int32_t(offset + i);
        }
    }
    resolveDependencies(schedule);
}

void OpIndex::resolveDependencies(const Schedule& schedule) {
    assignLarge(m_deps, opCount(), OpDeps{});
    // Every op below passed the range checks of the constructor or is skipped here, so the
    // slots can be computed without bounds checks.
    auto gidAt = [&](std::size_t slot) { return m_slots[slot] >= 0 ? m_slots[slot] : OpDeps::kMissing; };
    std::size_t crossDevice = 0;
    const int slices = std::max(1, schedule.sequenceSlices);
    for (std::size_t d = 0; d < schedule.order.size(); ++d) {
        const std::vector<Op>& ops = schedule.order[d];
        const std::size_t begin = m_deviceOffset[d];
        // A producer is on another device when its global id falls outside this device's range.
        auto remote = [&](std::int32_t dep) { return dep >= 0 && std::size_t(dep) - begin >= ops.size(); };
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const Op& op = ops[i];
            OpDeps& deps = m_deps[begin + i];
            if (!isComputeKind(op.kind) || op.pipe >= m_pipes || op.stage < 0 || op.stage >= m_stages ||
                op.mb < 0 || op.mb >= m_microbatches)
                continue;
            if (const auto local = localProducer(op.kind, recomputed(op.pipe, op.stage, op.mb)))
                deps.first = gidAt(slotOf(*local, op.pipe, op.stage, op.mb));
            if (const int from = producerStage(op.kind, op.stage, m_stages); from >= 0) {
                // F's only producer is on the previous stage; B has its local one first.
                std::int32_t& slot = op.kind == OpKind::F ? deps.first : deps.second;
                slot = gidAt(slotOf(op.kind, op.pipe, from, op.mb));
            }
            if (slices > 1) {
                // Sequence slices of one micro-batch on one device (Seq1F1B): a slice's forward
                // needs the earlier slices' keys and values, a slice's backward the gradients the
                // later slices' backwards return to them. F's second slot is free (its input comes
                // through the first); B's local producer F(u) follows from B(u + 1), which waits
                // for F(u + 1) and so for F(u), so B's first slot takes B(u + 1) where there is one.
                const int slice = op.mb % slices;
                if (op.kind == OpKind::F && slice > 0)
                    deps.second = gidAt(slotOf(OpKind::F, op.pipe, op.stage, op.mb - 1));
                else if (op.kind == OpKind::B && slice + 1 < slices && op.mb + 1 < m_microbatches &&
                         !recomputed(op.pipe, op.stage, op.mb))
                    deps.first = gidAt(slotOf(OpKind::B, op.pipe, op.stage, op.mb + 1));
            }
            crossDevice += std::size_t(remote(deps.first)) + std::size_t(remote(deps.second));
        }
    }
    m_crossDevice = crossDevice;
}

std::size_t OpIndex::slotOf(OpKind kind, int pipe, int stage, int mb) const {
    return ((static_cast<std::size_t>(computeSlot(kind)) * m_pipes + pipe) * m_stages + stage) *
               m_microbatches +
           mb;
}

bool OpIndex::recomputed(int pipe, int stage, int mb) const {
    return m_kinds > computeSlot(OpKind::R) && m_slots[slotOf(OpKind::R, pipe, stage, mb)] >= 0;
}

OpRef OpIndex::find(OpKind kind, int pipe, int stage, int mb) const {
    if (!isComputeKind(kind) || computeSlot(kind) >= m_kinds || pipe < 0 || pipe >= m_pipes || stage < 0 ||
        stage >= m_stages || mb < 0 || mb >= m_microbatches)
        return {};
    const std::int32_t gid = m_slots[slotOf(kind, pipe, stage, mb)];
    return gid >= 0 ? refOf(std::size_t(gid)) : OpRef{};
}

} // namespace stagecraft
