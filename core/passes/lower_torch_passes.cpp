// The passes of torch 2.15's `_prepare_schedule_with_comms` on one compute-only order, with
// torch's placement rules (read from torch/distributed/pipelining/schedules.py; the rules, not
// the code, are carried over). Lookups are flat arrays indexed by (stage, micro-batch), so every
// pass is linear in the number of actions, except the round-robin of addSendRecv.
#include "error.h"
#include "ir/stage_flow.h"
#include "passes/torch_actions.h"

#include <algorithm>
#include <string>
#include <utility>

namespace stagecraft::torchlower {

namespace {

[[noreturn]] void refuse(int rank, const std::string& message) {
    throw ValidationError("lower.torch", "rank " + std::to_string(rank), message);
}

/// The distinct stages an action computes, in sub-action order.
int stagesOf(const Action& a, int (&out)[2]) {
    out[0] = a.stage;
    if (a.type != Act::Overlap || a.stage2 == a.stage) return 1;
    out[1] = a.stage2;
    return 2;
}

/// For every position i of a rank's compute actions: the distinct stages it computes from i on,
/// in order of first appearance, cut after the action at which `limit` are found (torch's
/// `next_stage_indices`; an overlap that crosses the cut stays whole). Built backwards in one
/// pass: action i's stages come first, then those after i less these. Entries past a cut never
/// come back into the cut of an earlier position (it only puts stages in front of them), so
/// each list keeps at most `limit + 1` entries: O(actions x limit).
class Upcoming {
  public:
    Upcoming(const std::vector<Action>& actions, int limit) : m_cuts(actions.size()) {
        for (std::size_t i = actions.size(); i-- > 0;) {
            int own[2];
            const int count = stagesOf(actions[i], own);
            Entries& cut = m_cuts[i];
            for (int k = 0; k < count; ++k) cut.emplace_back(own[k], i);
            if (i + 1 < actions.size())
                for (const auto& entry : m_cuts[i + 1])
                    if (std::none_of(own, own + count, [&](int s) { return s == entry.first; }))
                        cut.push_back(entry);
            cut.resize(cutLength(cut, limit));
        }
    }

    /// Position i's stages for a limit up to the one built with.
    std::vector<int> window(std::size_t i, int limit) const {
        const Entries& cut = m_cuts[i];
        std::vector<int> out;
        for (std::size_t k = 0; k < cutLength(cut, limit); ++k) out.push_back(cut[k].first);
        return out;
    }

  private:
    using Entries = std::vector<std::pair<int, std::size_t>>; // (stage, action of first appearance)

    static std::size_t cutLength(const Entries& order, int limit) {
        std::size_t end = 0;
        while (end < order.size()) {
            const std::size_t at = order[end].second;
            while (end < order.size() && order[end].second == at) ++end;
            if (int(end) >= limit) break;
        }
        return end;
    }

    std::vector<Entries> m_cuts; ///< [position]
};

bool contains(const std::vector<int>& v, int x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

} // namespace

std::vector<Action> addUnshardReshard(const std::vector<Action>& compute, int maxActive, int lookahead) {
    const Upcoming upcoming(compute, std::max(maxActive, lookahead));
    std::vector<int> active; // in the order they were unsharded
    std::vector<Action> out;
    out.reserve(compute.size() + 8);
    for (std::size_t i = 0; i < compute.size(); ++i) {
        int own[2];
        if (stagesOf(compute[i], own) > maxActive)
            throw ValidationError("lower.torch", "maxActiveStages",
                                  "an overlapped action computes 2 stages, more than maxActiveStages = " +
                                      std::to_string(maxActive) + " may hold unsharded");
        const std::vector<int> resident = upcoming.window(i, maxActive);
        std::vector<int> fetch;
        for (int stage : upcoming.window(i, lookahead))
            if (!contains(active, stage)) fetch.push_back(stage);
        std::vector<int> kept;
        for (int stage : active) {
            if (contains(resident, stage))
                kept.push_back(stage);
            else
                out.push_back({Act::Reshard, stage});
        }
        active = std::move(kept);
        for (int stage : fetch) {
            active.push_back(stage);
            out.push_back({Act::Unshard, stage});
        }
        out.push_back(compute[i]);
    }
    for (int stage : active) out.push_back({Act::Reshard, stage});
    return out;
}

std::vector<Action> addReduceGrad(const std::vector<Action>& actions, const Topology& topology,
                                  bool deferWait) {
    // A stage's gradients are complete after its m-th whole backward or weight gradient (I does
    // not count: its W follows).
    std::vector<int> count(std::size_t(topology.stages()), 0);
    std::vector<Action> out;
    out.reserve(actions.size() + 8);
    int pending = -1; // stage whose deferred wait is outstanding
    for (const Action& a : actions) {
        out.push_back(a);
        for (const Action& part : partsOf(a)) {
            if (part.type != Act::B && part.type != Act::W) continue;
            if (++count[std::size_t(part.stage)] != topology.microbatches) continue;
            if (deferWait && pending >= 0) out.push_back({Act::WaitReduceGrad, pending});
            out.push_back({Act::ReduceGrad, part.stage});
            if (deferWait)
                pending = part.stage;
            else
                out.push_back({Act::WaitReduceGrad, part.stage});
        }
    }
    if (pending >= 0) out.push_back({Act::WaitReduceGrad, pending});
    return out;
}

RankActions addSendRecv(const RankActions& actions, const Topology& topology) {
    const int ranks = int(actions.size());
    const int stages = topology.stages();
    const std::size_t cells = std::size_t(topology.stages()) * std::size_t(topology.microbatches);
    // What each rank has placed so far, as torch's `prev_actions` holds it: F done, I/B done, and
    // RECV_F / RECV_B posted, per (stage, mb); a stage is only ever on one rank.
    std::vector<char> forward(cells, 0), backward(cells, 0), recvF(cells, 0), recvB(cells, 0);
    auto rankOf = [&](int stage) { return topology.rankOfStage[std::size_t(stage)]; };
    // The data direction of an action: F's activation or the backward input's gradient (I or a
    // full B), which stage_flow.h says where it comes from and goes to.
    auto flowOf = [](Act type) {
        return type == Act::F ? OpKind::F : isBackwardInput(type) ? OpKind::B : OpKind::W;
    };
    auto ready = [&](const Action& a, int rank) {
        const OpKind kind = flowOf(a.type);
        const int from = producerStage(kind, a.stage, stages);
        if (from < 0) return true;
        const auto& received = kind == OpKind::F ? recvF : recvB;
        const auto& done = kind == OpKind::F ? forward : backward;
        return received[topology.key(a.stage, a.mb)] != 0 ||
               (rankOf(from) == rank && done[topology.key(from, a.mb)] != 0);
    };
    RankActions out(actions.size());
    std::vector<std::size_t> next(actions.size(), 0);
    std::size_t left = 0;
    for (const auto& list : actions) left += list.size();
    // Rounds x ranks steps, each placing one action or none: O(actions x ranks) at worst (a round
    // places at least one action), about (longest list + pipeline depth) x ranks in practice.
    while (left > 0) {
        bool progress = false;
        for (int rank = 0; rank < ranks; ++rank) {
            const auto& list = actions[std::size_t(rank)];
            std::size_t& at = next[std::size_t(rank)];
            if (at == list.size()) continue;
            const Action& a = list[at];
            const Parts parts = partsOf(a);
            if (!std::all_of(parts.begin(), parts.end(), [&](const Action& p) { return ready(p, rank); }))
                continue;
            out[std::size_t(rank)].push_back(a);
            for (const Action& p : parts) {
                const OpKind kind = flowOf(p.type);
                if (kind == OpKind::W) continue;
                const bool isForward = kind == OpKind::F;
                (isForward ? forward : backward)[topology.key(p.stage, p.mb)] = 1;
                const int to = consumerStage(kind, p.stage, stages);
                if (to < 0 || rankOf(to) == rank) continue;
                out[std::size_t(rank)].push_back({isForward ? Act::SendF : Act::SendB, p.stage, p.mb});
                out[std::size_t(rankOf(to))].push_back({isForward ? Act::RecvF : Act::RecvB, to, p.mb});
                (isForward ? recvF : recvB)[topology.key(to, p.mb)] = 1;
            }
            ++at;
            --left;
            progress = true;
        }
        if (!progress) {
            for (int rank = 0; rank < ranks; ++rank)
                if (next[std::size_t(rank)] < actions[std::size_t(rank)].size())
                    refuse(rank, "torch's send/receive placement makes no progress (no rank's next action "
                                 "has its input): a malformed compute schedule");
        }
    }
    return out;
}

RankActions addWaitSend(const RankActions& actions, const Topology& topology) {
    const std::size_t cells = std::size_t(topology.stages()) * std::size_t(topology.microbatches);
    RankActions out(actions.size());
    for (std::size_t rank = 0; rank < actions.size(); ++rank) {
        std::vector<Action> sends;                     // in posting order
        std::vector<char> waited;                      // [index in sends]
        std::vector<std::int32_t> pendingF(cells, -1); // (stage, mb) -> index in sends of a SEND_F
        auto& list = out[rank];
        list.reserve(actions[rank].size() * 5 / 4);
        for (const Action& a : actions[rank]) {
            list.push_back(a);
            if (isSend(a.type)) {
                if (a.type == Act::SendF) pendingF[topology.key(a.stage, a.mb)] = std::int32_t(sends.size());
                sends.push_back(a);
                waited.push_back(0);
            }
            // A forward send is waited right after the local backward of its micro-batch: by then
            // the peer has consumed the activation, so the wait does not stall.
            for (const Action& part : partsOf(a)) {
                if (!isBackwardInput(part.type)) continue;
                std::int32_t& send = pendingF[topology.key(part.stage, part.mb)];
                if (send < 0 || waited[std::size_t(send)]) continue;
                list.push_back({Act::WaitSendF, part.stage, part.mb});
                waited[std::size_t(send)] = 1;
                send = -1;
            }
        }
        for (std::size_t k = 0; k < sends.size(); ++k)
            if (!waited[k])
                list.push_back({sends[k].type == Act::SendF ? Act::WaitSendF : Act::WaitSendB, sends[k].stage,
                                sends[k].mb});
    }
    return out;
}

RankActions deferRecvs(const RankActions& actions, const Topology& topology) {
    const std::size_t cells = std::size_t(topology.stages()) * std::size_t(topology.microbatches);
    RankActions out(actions.size());
    for (std::size_t rank = 0; rank < actions.size(); ++rank) {
        std::vector<Action> deferred; // RECVs in the order they were met
        std::vector<char> flushed;
        std::vector<std::int32_t> at[2]{std::vector<std::int32_t>(cells, -1),
                                        std::vector<std::int32_t>(cells, -1)}; // [F/B](stage, mb)
        std::vector<std::vector<std::int32_t>> byPeer(std::size_t(topology.ranks));
        std::vector<std::size_t> peerCursor(std::size_t(topology.ranks), 0);
        std::size_t outstanding = 0;
        auto& list = out[rank];
        auto flush = [&](std::int32_t k) {
            if (k < 0 || flushed[std::size_t(k)]) return;
            flushed[std::size_t(k)] = 1;
            --outstanding;
            list.push_back(deferred[std::size_t(k)]);
        };
        for (const Action& a : actions[rank]) {
            if (isRecv(a.type)) {
                const auto k = std::int32_t(deferred.size());
                at[a.type == Act::RecvF ? 0 : 1][topology.key(a.stage, a.mb)] = k;
                byPeer[std::size_t(topology.peerOf(a))].push_back(k);
                deferred.push_back(a);
                flushed.push_back(0);
                ++outstanding;
                continue;
            }
            // Rank parity: the lower rank of a pair posts its receives from the peer before it
            // sends to it, so the higher rank's send always finds a receive.
            if (isSend(a.type)) {
                const int peer = topology.peerOf(a);
                if (int(rank) < peer) {
                    auto& queue = byPeer[std::size_t(peer)];
                    for (std::size_t& c = peerCursor[std::size_t(peer)]; c < queue.size(); ++c)
                        flush(queue[c]);
                }
            }
            for (const Action& part : partsOf(a)) {
                if (part.type == Act::F) flush(at[0][topology.key(part.stage, part.mb)]);
                if (isBackwardInput(part.type)) flush(at[1][topology.key(part.stage, part.mb)]);
            }
            list.push_back(a);
        }
        if (outstanding > 0)
            refuse(int(rank),
                   "a deferred receive has no consumer on the rank: every RECV must be consumed by a "
                   "later compute action");
    }
    return out;
}

} // namespace stagecraft::torchlower
