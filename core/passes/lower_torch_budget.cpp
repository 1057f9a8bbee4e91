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

/// The budget's state over all ranks: the actions as graph nodes, each send's receive and the
/// node its wait precedes, and the graph the candidates are judged on.
class SendBudget {
  public:
    SendBudget(const RankActions& actions, const Topology& topology, int limit)
        : m_actions(actions), m_topology(topology), m_limit(limit),
          m_cells(std::size_t(topology.stages()) * std::size_t(topology.microbatches)),
          m_nodeOf(actions.size()), m_sendNode(2 * m_cells, -1), m_recvNode(2 * m_cells, -1),
          m_waitBefore(2 * m_cells, -1), m_matchingRecv(2 * m_cells, -1), m_moved(2 * m_cells, 0) {}

    RankActions run();

  private:
    static bool isWait(const Action& a) { return a.type == Act::WaitSendF || a.type == Act::WaitSendB; }
    /// A send, or the wait on one, as an index of the per-send tables.
    std::size_t sendKey(const Action& a) const {
        const bool forward = a.type == Act::SendF || a.type == Act::WaitSendF;
        return (forward ? 0 : m_cells) + m_topology.key(a.stage, a.mb);
    }
    int numberNodes();
    void matchReceives();
    void buildGraph(int nodes);
    std::pair<bool, bool> classify(std::size_t key, int before);
    std::size_t chooseWait(const std::vector<Action>& pending, int before, std::size_t rank,
                           const Action& send);
    void budgetRank(std::size_t r, std::vector<Action>& list);

    const RankActions& m_actions;
    const Topology& m_topology;
    const int m_limit;
    const std::size_t m_cells;
    std::vector<std::vector<int>> m_nodeOf; ///< [rank][action index], -1 for waits
    std::vector<int> m_sendNode, m_recvNode, m_waitBefore, m_matchingRecv;
    std::vector<char> m_moved; ///< sends whose wait moved earlier
    BudgetGraph m_graph{0};
};

/// Nodes: every action but the send waits, numbered rank by rank; a wait sits before the next
/// non-wait action of its rank (none at the end). Returns the node count.
int SendBudget::numberNodes() {
    int nodes = 0;
    for (std::size_t r = 0; r < m_actions.size(); ++r) {
        for (const Action& a : m_actions[r]) {
            m_nodeOf[r].push_back(isWait(a) ? -1 : nodes);
            if (isWait(a)) continue;
            if (isSend(a.type)) m_sendNode[sendKey(a)] = nodes;
            if (isRecv(a.type))
                m_recvNode[(a.type == Act::RecvF ? 0 : m_cells) + m_topology.key(a.stage, a.mb)] = nodes;
            ++nodes;
        }
        int next = -1;
        for (std::size_t i = m_actions[r].size(); i-- > 0;) {
            if (m_nodeOf[r][i] >= 0)
                next = m_nodeOf[r][i];
            else
                m_waitBefore[sendKey(m_actions[r][i])] = next;
        }
    }
    return nodes;
}

/// Each send's receive on the peer stage (stage_flow.h), refused when there is none.
void SendBudget::matchReceives() {
    for (std::size_t key = 0; key < 2 * m_cells; ++key) {
        if (m_sendNode[key] < 0) continue;
        const bool forward = key < m_cells;
        const std::size_t cell = key % m_cells;
        const int stage = int(cell / std::size_t(m_topology.microbatches));
        const int mb = int(cell % std::size_t(m_topology.microbatches));
        const int peerStage = transferPeerStage(forward ? OpKind::F : OpKind::B, true, stage);
        m_matchingRecv[key] = m_recvNode[(forward ? 0 : m_cells) + m_topology.key(peerStage, mb)];
        if (m_matchingRecv[key] < 0)
            throw ValidationError("lower.torch", "maxOutstandingSends",
                                  "send " + nameOf({forward ? Act::SendF : Act::SendB, stage, mb}) +
                                      " has no matching receive");
    }
}

/// Each rank's order, each send -> its receive, each receive -> the action its wait precedes.
void SendBudget::buildGraph(int nodes) {
    m_graph = BudgetGraph{std::size_t(nodes)};
    for (const auto& rankNodes : m_nodeOf) {
        int previous = -1;
        for (int node : rankNodes) {
            if (node < 0) continue;
            if (previous >= 0) m_graph.add(previous, node);
            previous = node;
        }
    }
    for (std::size_t key = 0; key < 2 * m_cells; ++key)
        if (m_sendNode[key] >= 0) m_graph.add(m_sendNode[key], m_matchingRecv[key]);
    for (std::size_t key = 0; key < 2 * m_cells; ++key)
        if (m_sendNode[key] >= 0 && m_waitBefore[key] >= 0)
            m_graph.add(m_matchingRecv[key], m_waitBefore[key]);
    if (!m_graph.acyclic())
        throw ValidationError("lower.torch", "maxOutstandingSends",
                              "the sends, receives and waits of the programs form a cycle");
}

/// Whether moving the wait of `key` before node `before` is safe, and whether it cannot stall.
std::pair<bool, bool> SendBudget::classify(std::size_t key, int before) {
    const int recv = m_matchingRecv[key], old = m_waitBefore[key];
    if (old >= 0) m_graph.remove(recv, old);
    const bool safe = !m_graph.reaches(before, recv);
    const bool nonStalling = safe && m_graph.reaches(recv, before);
    if (old >= 0) m_graph.add(recv, old);
    return {safe, nonStalling};
}

/// torch's pick among the pending sends: the first non-stalling in posting order, else the first
/// safe one; refused when none is safe.
std::size_t SendBudget::chooseWait(const std::vector<Action>& pending, int before, std::size_t rank,
                                   const Action& send) {
    std::ptrdiff_t chosen = -1, fallback = -1;
    for (std::size_t k = 0; k < pending.size() && chosen < 0; ++k) {
        const auto [safe, nonStalling] = classify(sendKey(pending[k]), before);
        if (nonStalling) chosen = std::ptrdiff_t(k);
        if (safe && fallback < 0) fallback = std::ptrdiff_t(k);
    }
    if (chosen < 0) chosen = fallback;
    if (chosen >= 0) return std::size_t(chosen);
    std::string outstanding;
    for (const Action& p : pending) outstanding += (outstanding.empty() ? "" : ", ") + nameOf(p);
    throw ValidationError("lower.torch", "maxOutstandingSends",
                          "no wait can move to keep at most " + std::to_string(m_limit) +
                              " sends pending on rank " + std::to_string(rank) + " before " + nameOf(send) +
                              " (pending: " + outstanding + "); torch refuses this limit for this schedule");
}

/// Rank r's actions with waits moved so that no send leaves more than the limit pending.
void SendBudget::budgetRank(std::size_t r, std::vector<Action>& list) {
    std::vector<Action> pending; // sends not yet waited, in posting order
    for (std::size_t i = 0; i < m_actions[r].size(); ++i) {
        const Action& a = m_actions[r][i];
        if (isWait(a)) {
            const std::size_t key = sendKey(a);
            if (m_moved[key]) {
                m_moved[key] = 0; // already waited earlier
                continue;
            }
            list.push_back(a);
            pending.erase(std::find_if(pending.begin(), pending.end(),
                                       [&](const Action& p) { return sendKey(p) == key; }));
            continue;
        }
        if (!isSend(a.type)) {
            list.push_back(a);
            continue;
        }
        const int before = m_nodeOf[r][i];
        while (int(pending.size()) >= m_limit) {
            const std::size_t chosen = chooseWait(pending, before, r, a);
            const Action send = pending[chosen];
            pending.erase(pending.begin() + std::ptrdiff_t(chosen));
            const std::size_t key = sendKey(send);
            if (m_waitBefore[key] >= 0) m_graph.remove(m_matchingRecv[key], m_waitBefore[key]);
            m_graph.add(m_matchingRecv[key], before);
            m_waitBefore[key] = before;
            m_moved[key] = 1;
            list.push_back({send.type == Act::SendF ? Act::WaitSendF : Act::WaitSendB, send.stage, send.mb});
        }
        list.push_back(a);
        pending.push_back(a);
    }
}

RankActions SendBudget::run() {
    const int nodes = numberNodes();
    matchReceives();
    buildGraph(nodes);
    RankActions out(m_actions.size());
    for (std::size_t r = 0; r < m_actions.size(); ++r) budgetRank(r, out[r]);
    return out;
}

} // namespace

RankActions addWaitSendBudget(const RankActions& actions, const Topology& topology, int limit) {
    return SendBudget(actions, topology, limit).run();
}

} // namespace stagecraft::torchlower
