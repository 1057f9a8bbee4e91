#include "ir/op_index.h"

namespace stagecraft {

OpIndex::OpIndex(const Schedule& schedule)
    : m_pipes(schedule.pipes), m_stages(schedule.stagesPerPipe), m_microbatches(schedule.microbatches) {
    m_slots.assign(3ull * m_pipes * m_stages * m_microbatches, OpRef{});
    m_mbPipe.assign(static_cast<std::size_t>(m_microbatches), -1);
    m_deviceOffset.assign(schedule.order.size() + 1, 0);
    for (std::size_t d = 0; d < schedule.order.size(); ++d)
        m_deviceOffset[d + 1] = m_deviceOffset[d] + schedule.order[d].size();

    for (std::size_t d = 0; d < schedule.order.size(); ++d) {
        const auto& ops = schedule.order[d];
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const Op& op = ops[i];
            const OpRef here{static_cast<std::int32_t>(d), static_cast<std::int32_t>(i)};
            if (op.pipe >= m_pipes || op.stage < 0 || op.stage >= m_stages) {
                m_problems.push_back({here, describeOp(op) + " names stage " + std::to_string(op.stage) +
                                                " of pipe " + std::to_string(op.pipe) + ", but the schedule has " +
                                                std::to_string(m_pipes) + " pipe(s) of " +
                                                std::to_string(m_stages) + " stages"});
                continue;
            }
            if (!isComputeKind(op.kind)) continue;
            if (op.mb < 0 || op.mb >= m_microbatches) {
                m_problems.push_back({here, describeOp(op) + " names micro-batch " + std::to_string(op.mb) +
                                                ", outside 0.." + std::to_string(m_microbatches - 1)});
                continue;
            }
            int& pipe = m_mbPipe[static_cast<std::size_t>(op.mb)];
            if (pipe < 0) pipe = op.pipe;
            if (pipe != op.pipe) {
                m_problems.push_back({here, describeOp(op) + ": micro-batch " + std::to_string(op.mb) +
                                                " already flows through pipe " + std::to_string(pipe) +
                                                "; a micro-batch uses one pipe"});
                continue;
            }
            OpRef& slot = m_slots[slotOf(op.kind, op.pipe, op.stage, op.mb)];
            if (slot.valid()) {
                m_problems.push_back({here, describeOp(op) + " appears twice: first on device " +
                                                std::to_string(slot.device) + " at position " +
                                                std::to_string(slot.index)});
                continue;
            }
            slot = here;
        }
    }
}

std::size_t OpIndex::slotOf(OpKind kind, int pipe, int stage, int mb) const {
    return ((static_cast<std::size_t>(kind) * m_pipes + pipe) * m_stages + stage) * m_microbatches + mb;
}

OpRef OpIndex::find(OpKind kind, int pipe, int stage, int mb) const {
    if (!isComputeKind(kind) || pipe < 0 || pipe >= m_pipes || stage < 0 || stage >= m_stages || mb < 0 ||
        mb >= m_microbatches)
        return {};
    return m_slots[slotOf(kind, pipe, stage, mb)];
}

} // namespace stagecraft
