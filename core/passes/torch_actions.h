#pragma once
// Internal to the torch lowering (passes/lower_torch*.cpp): torch 2.15's pipelining actions as
// the passes of `_prepare_schedule_with_comms` see them, one list per rank, before they become
// Stagecraft instructions. An action is small plain data; an OVERLAP_F_B carries its two
// sub-actions (a forward and a whole backward, all DualPipeV writes) in the same record.

#include "ir/schedule.h"
#include "ir/stage_flow.h"

#include <cstdint>
#include <vector>

namespace stagecraft::torchlower {

enum class Act : std::uint8_t {
    F,       ///< forward
    I,       ///< input-gradient half of a split backward
    B,       ///< whole backward (FULL_BACKWARD)
    W,       ///< weight-gradient half
    Overlap, ///< OVERLAP_F_B: F of (stage, mb), then B of (stage2, mb2)
    SendF,
    RecvF,
    SendB,
    RecvB,
    WaitSendF,
    WaitSendB,
    Unshard,
    Reshard,
    ReduceGrad,
    WaitReduceGrad,
};

struct Action {
    Act type = Act::F;
    std::int32_t stage = 0;
    std::int32_t mb = -1;     ///< -1 for UNSHARD, RESHARD, REDUCE_GRAD, WAIT_REDUCE_GRAD
    std::int32_t stage2 = -1; ///< Overlap: the backward's stage and micro-batch
    std::int32_t mb2 = -1;
};

using RankActions = std::vector<std::vector<Action>>; ///< [rank]

/// The single actions an action stands for: itself, or an overlap's F and B.
struct Parts {
    Action part[2];
    int count = 1;
    const Action* begin() const { return part; }
    const Action* end() const { return part + count; }
};
inline Parts partsOf(const Action& a) {
    if (a.type != Act::Overlap) return {{a, {}}, 1};
    return {{Action{Act::F, a.stage, a.mb}, Action{Act::B, a.stage2, a.mb2}}, 2};
}

inline bool isCompute(Act t) {
    return t == Act::F || t == Act::I || t == Act::B || t == Act::W || t == Act::Overlap;
}
inline bool isBackwardInput(Act t) {
    return t == Act::I || t == Act::B;
}
inline bool isSend(Act t) {
    return t == Act::SendF || t == Act::SendB;
}
inline bool isRecv(Act t) {
    return t == Act::RecvF || t == Act::RecvB;
}

/// Stage -> rank, and what the passes ask of it.
struct Topology {
    std::vector<int> rankOfStage;
    int ranks = 0;
    int microbatches = 0;

    int stages() const { return int(rankOfStage.size()); }
    /// The rank a SEND goes to, or a RECV comes from.
    int peerOf(const Action& a) const {
        const bool forward = a.type == Act::SendF || a.type == Act::RecvF;
        const bool send = a.type == Act::SendF || a.type == Act::SendB;
        return rankOfStage[std::size_t(transferPeerStage(forward ? OpKind::F : OpKind::B, send, a.stage))];
    }
    /// (stage, mb) as one index, for flat per-transfer tables.
    std::size_t key(int stage, int mb) const {
        return std::size_t(stage) * std::size_t(microbatches) + std::size_t(mb);
    }
};

// The passes, in the order `_prepare_schedule_with_comms` chains them (lower_torch_passes.cpp).
// Each throws ValidationError("lower.torch") where torch raises.

/// `_add_unshard_reshard`: UNSHARD a stage when it enters the window of the next `lookahead`
/// distinct stages the rank computes, RESHARD it when it leaves the next `maxActive`; all
/// remaining stages are resharded at the end.
std::vector<Action> addUnshardReshard(const std::vector<Action>& compute, int maxActive, int lookahead);

/// `_add_reduce_grad`: REDUCE_GRAD right after the action in which a stage's m-th B or W ends,
/// its wait right after it, or (deferred) before the next reduction or at the end.
std::vector<Action> addReduceGrad(const std::vector<Action>& actions, const Topology& topology,
                                  bool deferWait);

/// `_add_send_recv`: ranks round-robin, one ready action per rank per round; a placed action's
/// SEND is appended to its rank and the matching RECV to the receiver's at the same moment.
RankActions addSendRecv(const RankActions& actions, const Topology& topology);

/// `_add_wait_send`: WAIT_SEND_F right after the first local I/B of the same stage and mb; every
/// other send is waited at the end of the rank's list, in posting order.
RankActions addWaitSend(const RankActions& actions, const Topology& topology);

/// `_defer_recv_ops`: each RECV moves to just before its consumer, except that a rank flushes
/// its deferred RECVs from a higher-ranked peer before it sends to that peer.
RankActions deferRecvs(const RankActions& actions, const Topology& topology);

/// `_add_wait_send_budget` (lower_torch_budget.cpp): at most `limit` sends pending per rank.
RankActions addWaitSendBudget(const RankActions& actions, const Topology& topology, int limit);

} // namespace stagecraft::torchlower
