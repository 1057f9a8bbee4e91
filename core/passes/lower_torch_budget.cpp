// torch 2.15's `_add_wait_send_budget` (max_outstanding_sends): before a send would leave more
// than `limit` sends pending on its rank, one pending send's wait moves to just before it. The
// candidates are judged on a dependency graph of every non-wait action: each rank's order, each
// send -> its receive, and each receive -> the action its send's wait precedes. A move is safe
// when the send cannot depend on the receive (no cycle); it does not stall when the receive
// already precedes the send. torch takes the first non-stalling candidate in posting order, else
// the first safe one, and refuses when none is safe. The graph changes with every move and is
// shared by all ranks, which are treated in ascending order, so the rule is reproduced literally:
// one depth-first search per candidate, O(sends x limit x actions) at worst. Only this option
// costs that much.
#include "error.h"
#include "passes/torch_actions.h"

#include <algorithm>
#include <deque>
#include <string>

namespace stagecraft::torchlower {

namespace {

std::string nameOf(const Action& a) {
    const char* type = a.type == Act::SendF ? "SEND_F" : a.type == Act::SendB ? "SEND_B" : "?";
    return std::to_string(a.stage) + type + std::to_string(a.mb);
}

/// The dependency graph of the non-wait actions, with the waits as movable edges.
class BudgetGraph {
  public:
    explicit BudgetGraph(std::size_t nodes) : m_edges(nodes), m_seen(nodes, 0) {}

    void add(int from, int to) { m_edges[std::size_t(from)].push_back(to); }
    void remove(int from, int to) {
        auto& out = m_edges[std::size_t(from)];
        const auto it = std::find(out.begin(), out.end(), to);
        *it = out.back();
        out.pop_back();
    }

    bool reaches(int from, int to) {
        if (from == to) return true;
        ++m_epoch;
        m_stack.assign(1, from);
        m_seen[std::size_t(from)] = m_epoch;
        while (!m_stack.empty()) {
            const int node = m_stack.back();
            m_stack.pop_back();
            for (int next : m_edges[std::size_t(node)]) {
                if (next == to) return true;
                if (m_seen[std::size_t(next)] == m_epoch) continue;
                m_seen[std::size_t(next)] = m_epoch;
                m_stack.push_back(next);
            }
        }
        return false;
    }

    bool acyclic() const {
        std::vector<int> inDegree(m_edges.size(), 0);
        for (const auto& out : m_edges)
            for (int next : out) ++inDegree[std::size_t(next)];
        std::deque<int> queue;
        for (std::size_t n = 0; n < m_edges.size(); ++n)
            if (inDegree[n] == 0) queue.push_back(int(n));
        std::size_t walked = 0;
        while (!queue.empty()) {
            const int node = queue.front();
            queue.pop_front();
            ++walked;
            for (int next : m_edges[std::size_t(node)])
                if (--inDegree[std::size_t(next)] == 0) queue.push_back(next);
        }
        return walked == m_edges.size();
    }

  private:
    std::vector<std::vector<int>> m_edges;
    std::vector<unsigned> m_seen;
    unsigned m_epoch = 0;
    std::vector<int> m_stack;
};

} // namespace

RankActions addWaitSendBudget(const RankActions& actions, const Topology& topology, int limit) {
    const std::size_t cells = std::size_t(topology.stages()) * std::size_t(topology.microbatches);
    auto sendKey = [&](const Action& a) { // a send, or the wait on one
        const bool forward = a.type == Act::SendF || a.type == Act::WaitSendF;
        return (forward ? 0 : cells) + topology.key(a.stage, a.mb);
    };
    auto isWait = [](const Action& a) { return a.type == Act::WaitSendF || a.type == Act::WaitSendB; };

    // Nodes: every action but the send waits, numbered rank by rank.
    std::vector<std::vector<int>> nodeOf(actions.size()); // [rank][action index], -1 for waits
    std::vector<int> sendNode(2 * cells, -1), recvNode(2 * cells, -1), waitBefore(2 * cells, -1);
    int nodes = 0;
    for (std::size_t r = 0; r < actions.size(); ++r) {
        for (const Action& a : actions[r]) {
            nodeOf[r].push_back(isWait(a) ? -1 : nodes);
            if (isWait(a)) continue;
            if (isSend(a.type)) sendNode[sendKey(a)] = nodes;
            if (isRecv(a.type))
                recvNode[(a.type == Act::RecvF ? 0 : cells) + topology.key(a.stage, a.mb)] = nodes;
            ++nodes;
        }
        // A wait sits before the next non-wait action of its rank (none at the end).
        int next = -1;
        for (std::size_t i = actions[r].size(); i-- > 0;) {
            if (nodeOf[r][i] >= 0)
                next = nodeOf[r][i];
            else
                waitBefore[sendKey(actions[r][i])] = next;
        }
    }
    std::vector<int> matchingRecv(2 * cells, -1);
    for (std::size_t key = 0; key < 2 * cells; ++key) {
        if (sendNode[key] < 0) continue;
        const bool forward = key < cells;
        const std::size_t cell = key % cells;
        const int stage = int(cell / std::size_t(topology.microbatches));
        const int mb = int(cell % std::size_t(topology.microbatches));
        const int peerStage = stage + (forward ? 1 : -1);
        matchingRecv[key] = recvNode[(forward ? 0 : cells) + topology.key(peerStage, mb)];
        if (matchingRecv[key] < 0)
            throw ValidationError("lower.torch", "maxOutstandingSends",
                                  "send " + nameOf({forward ? Act::SendF : Act::SendB, stage, mb}) +
                                      " has no matching receive");
    }

    BudgetGraph graph{std::size_t(nodes)};
    for (const auto& rankNodes : nodeOf) {
        int previous = -1;
        for (int node : rankNodes) {
            if (node < 0) continue;
            if (previous >= 0) graph.add(previous, node);
            previous = node;
        }
    }
    for (std::size_t key = 0; key < 2 * cells; ++key)
        if (sendNode[key] >= 0) graph.add(sendNode[key], matchingRecv[key]);
    for (std::size_t key = 0; key < 2 * cells; ++key)
        if (sendNode[key] >= 0 && waitBefore[key] >= 0) graph.add(matchingRecv[key], waitBefore[key]);
    if (!graph.acyclic())
        throw ValidationError("lower.torch", "maxOutstandingSends",
                              "the sends, receives and waits of the programs form a cycle");

    // Whether moving the wait of `key` before `before` is safe, and whether it cannot stall.
    auto classify = [&](std::size_t key, int before) {
        const int recv = matchingRecv[key], old = waitBefore[key];
        if (old >= 0) graph.remove(recv, old);
        const bool safe = !graph.reaches(before, recv);
        const bool nonStalling = safe && graph.reaches(recv, before);
        if (old >= 0) graph.add(recv, old);
        return std::pair{safe, nonStalling};
    };

    RankActions out(actions.size());
    std::vector<char> moved(2 * cells, 0);
    for (std::size_t r = 0; r < actions.size(); ++r) {
        std::vector<Action> pending; // sends not yet waited, in posting order
        auto& list = out[r];
        for (std::size_t i = 0; i < actions[r].size(); ++i) {
            const Action& a = actions[r][i];
            if (isWait(a)) {
                const std::size_t key = sendKey(a);
                if (moved[key]) {
                    moved[key] = 0; // already waited earlier
                    continue;
                }
                list.push_back(a);
                pending.erase(std::find_if(pending.begin(), pending.end(),
                                           [&](const Action& p) { return sendKey(p) == key; }));
                continue;
            }
            if (isSend(a.type)) {
                const int before = nodeOf[r][i];
                while (int(pending.size()) >= limit) {
                    std::ptrdiff_t chosen = -1, fallback = -1;
                    for (std::size_t k = 0; k < pending.size() && chosen < 0; ++k) {
                        const auto [safe, nonStalling] = classify(sendKey(pending[k]), before);
                        if (nonStalling) chosen = std::ptrdiff_t(k);
                        if (safe && fallback < 0) fallback = std::ptrdiff_t(k);
                    }
                    if (chosen < 0) chosen = fallback;
                    if (chosen < 0) {
                        std::string outstanding;
                        for (const Action& p : pending)
                            outstanding += (outstanding.empty() ? "" : ", ") + nameOf(p);
                        throw ValidationError("lower.torch", "maxOutstandingSends",
                                              "no wait can move to keep at most " + std::to_string(limit) +
                                                  " sends pending on rank " + std::to_string(r) + " before " +
                                                  nameOf(a) + " (pending: " + outstanding +
                                                  "); torch refuses this limit for this schedule");
                    }
                    const Action send = pending[std::size_t(chosen)];
                    pending.erase(pending.begin() + chosen);
                    const std::size_t key = sendKey(send);
                    if (waitBefore[key] >= 0) graph.remove(matchingRecv[key], waitBefore[key]);
                    graph.add(matchingRecv[key], before);
                    waitBefore[key] = before;
                    moved[key] = 1;
                    list.push_back(
                        {send.type == Act::SendF ? Act::WaitSendF : Act::WaitSendB, send.stage, send.mb});
                }
                list.push_back(a);
                pending.push_back(a);
                continue;
            }
            list.push_back(a);
        }
    }
    return out;
}

} // namespace stagecraft::torchlower
