#include "edit/fewest_moves.h"

#include "ir/op_index.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace stagecraft {

namespace {

constexpr std::int32_t kNoOp = -1;

/// The order as a graph: ops by global id, each with the ops that wait for it (dependencies) and
/// its neighbours in its device's chain of kept ops (a doubly linked list, so taking an op out
/// and putting it back costs O(1)).
class OrderGraph {
  public:
    explicit OrderGraph(const Schedule& s) : m_s(s), m_index(s) {
        const std::size_t n = m_index.opCount();
        m_op.resize(n);
        m_movable.assign(n, 1);
        m_next.assign(n, kNoOp);
        m_prev.assign(n, kNoOp);
        m_kept.assign(n, 1);
        std::vector<std::vector<std::int32_t>> producers(n);
        std::vector<std::vector<std::int32_t>> syncsOfStage(std::size_t(std::max(s.stagesPerPipe, 0)));
        for (int d = 0; d < s.devices; ++d) {
            const auto& ops = s.order[std::size_t(d)];
            for (std::size_t i = 0; i < ops.size(); ++i) {
                const auto gid = std::int32_t(m_index.globalId(OpRef{d, std::int32_t(i)}));
                m_op[std::size_t(gid)] = ops[i];
                if (i > 0) link(gid - 1, gid);
                if (ops[i].kind == OpKind::GradSync) syncsOfStage[std::size_t(ops[i].stage)].push_back(gid);
            }
        }
        const OpKind last = s.splitBackward ? OpKind::W : OpKind::B;
        for (std::size_t gid = 0; gid < n; ++gid) {
            const Op& op = m_op[gid];
            if (isComputeKind(op.kind)) {
                const OpDeps& deps = m_index.depsOf(gid);
                for (const std::int32_t p : {deps.first, deps.second})
                    if (p >= 0) producers[gid].push_back(p);
                continue;
            }
            // A sync or step waits for every last backward of its pipe's stage; a step also for
            // its stage's collective, which starts when every replica has posted its sync.
            for (int mb = 0; mb < s.microbatches; ++mb)
                if (m_index.pipeOf(mb) == op.pipe)
                    if (const OpRef at = m_index.find(last, op.pipe, op.stage, mb); at.valid())
                        producers[gid].push_back(std::int32_t(m_index.globalId(at)));
            if (op.kind == OpKind::Optimizer)
                for (const std::int32_t sync : syncsOfStage[std::size_t(op.stage)])
                    producers[gid].push_back(sync);
        }
        // A whole backward's B and W move only as a pair, after a split: never taken out here.
        for (const Op& b : s.wholeBackward)
            for (const OpKind kind : {OpKind::B, OpKind::W})
                if (const OpRef at = m_index.find(kind, b.pipe, b.stage, b.mb); at.valid())
                    m_movable[m_index.globalId(at)] = 0;
        // Consumers, compressed: the edges a cycle search follows.
        m_consumerStart.assign(n + 1, 0);
        for (const auto& ps : producers)
            for (const std::int32_t p : ps) ++m_consumerStart[std::size_t(p) + 1];
        for (std::size_t i = 0; i < n; ++i) m_consumerStart[i + 1] += m_consumerStart[i];
        m_consumers.resize(m_consumerStart[n]);
        std::vector<std::size_t> fill(m_consumerStart.begin(), m_consumerStart.end() - 1);
        for (std::size_t c = 0; c < n; ++c)
            for (const std::int32_t p : producers[c]) m_consumers[fill[std::size_t(p)]++] = std::int32_t(c);
    }

    std::size_t size() const { return m_op.size(); }
    bool movable(std::int32_t v) const { return m_movable[std::size_t(v)] != 0; }
    bool kept(std::int32_t v) const { return m_kept[std::size_t(v)] != 0; }

    /// Takes `v` out of its device's chain (its neighbours become linked), or puts it back.
    void takeOut(std::int32_t v) {
        const std::int32_t p = m_prev[std::size_t(v)], n = m_next[std::size_t(v)];
        if (p != kNoOp) m_next[std::size_t(p)] = n;
        if (n != kNoOp) m_prev[std::size_t(n)] = p;
        m_kept[std::size_t(v)] = 0;
    }
    void putBack(std::int32_t v) { // the reverse of takeOut, in the reverse order of the takes
        const std::int32_t p = m_prev[std::size_t(v)], n = m_next[std::size_t(v)];
        if (p != kNoOp) m_next[std::size_t(p)] = v;
        if (n != kNoOp) m_prev[std::size_t(n)] = v;
        m_kept[std::size_t(v)] = 1;
    }

    /// Kept ops placed before a producer of their own device (each pair a cycle of two: the
    /// dependency one way, the chain the other), and how many of them share no op: at least that
    /// many ops must move. `first` is one such pair (-1s when none).
    std::size_t localInversions(std::pair<std::int32_t, std::int32_t>& first) const {
        first = {kNoOp, kNoOp};
        std::vector<std::uint8_t> used(size(), 0);
        std::size_t disjoint = 0;
        for (std::size_t p = 0; p < size(); ++p) {
            if (!m_kept[p]) continue;
            for (std::size_t k = m_consumerStart[p]; k < m_consumerStart[p + 1]; ++k) {
                const auto c = std::size_t(m_consumers[k]);
                // Ids follow each device's order: a consumer with a smaller id on the same device
                // comes before its producer.
                if (!m_kept[c] || c > p || m_index.deviceOf(c) != m_index.deviceOf(p)) continue;
                if (first.first == kNoOp) first = {std::int32_t(p), std::int32_t(c)};
                if (used[p] || used[c]) continue;
                used[p] = used[c] = 1;
                ++disjoint;
            }
        }
        return disjoint;
    }

    /// A cycle of dependencies and chain links, as the ops where it follows a dependency (both
    /// ends of each); empty when there is none.
    std::vector<std::int32_t> cycleEnds() const {
        const std::size_t n = size();
        std::vector<std::uint8_t> state(n, 0); // 0 new, 1 on the stack, 2 done
        std::vector<std::int32_t> parent(n, kNoOp);
        std::vector<std::uint8_t> viaDependency(n, 0); // the edge from its parent is a dependency
        struct Frame {
            std::int32_t v;
            std::size_t next; // consumer index, then one more for the chain link
        };
        std::vector<Frame> stack;
        for (std::size_t root = 0; root < n; ++root) {
            if (state[root] != 0) continue;
            stack.push_back({std::int32_t(root), m_consumerStart[root]});
            state[root] = 1;
            while (!stack.empty()) {
                Frame& f = stack.back();
                const auto v = std::size_t(f.v);
                std::int32_t w = kNoOp;
                bool dependency = false;
                if (f.next < m_consumerStart[v + 1]) {
                    w = m_consumers[f.next++];
                    dependency = true;
                } else if (f.next == m_consumerStart[v + 1]) {
                    ++f.next;
                    if (m_kept[v]) w = m_next[v];
                } else {
                    state[v] = 2;
                    stack.pop_back();
                    continue;
                }
                if (w == kNoOp || state[std::size_t(w)] == 2) continue;
                if (state[std::size_t(w)] == 1) return endsOf(f.v, w, dependency, parent, viaDependency);
                state[std::size_t(w)] = 1;
                parent[std::size_t(w)] = f.v;
                viaDependency[std::size_t(w)] = dependency ? 1 : 0;
                stack.push_back({w, m_consumerStart[std::size_t(w)]});
            }
        }
        return {};
    }

    /// Each device's order once the ops taken out are put back in a topological order of the
    /// dependencies and the kept ops' chains, each as early as its place before allows.
    std::vector<std::vector<std::int32_t>> orders() const {
        const std::size_t n = size();
        std::vector<std::int32_t> waits(n, 0);
        for (std::size_t v = 0; v < n; ++v) {
            for (std::size_t k = m_consumerStart[v]; k < m_consumerStart[v + 1]; ++k)
                ++waits[std::size_t(m_consumers[k])];
            if (m_kept[v] && m_next[v] != kNoOp) ++waits[std::size_t(m_next[v])];
        }
        // Ready ops by their place before: a moved op lands near where it was.
        std::priority_queue<std::int32_t, std::vector<std::int32_t>, std::greater<>> ready;
        for (std::size_t v = 0; v < n; ++v)
            if (waits[v] == 0) ready.push(std::int32_t(v));
        std::vector<std::vector<std::int32_t>> out(m_s.order.size());
        const auto release = [&](std::int32_t w) {
            if (--waits[std::size_t(w)] == 0) ready.push(w);
        };
        while (!ready.empty()) {
            const std::int32_t v = ready.top();
            ready.pop();
            out[std::size_t(m_index.deviceOf(std::size_t(v)))].push_back(v);
            for (std::size_t k = m_consumerStart[std::size_t(v)]; k < m_consumerStart[std::size_t(v) + 1];
                 ++k)
                release(m_consumers[k]);
            if (m_kept[std::size_t(v)] && m_next[std::size_t(v)] != kNoOp) release(m_next[std::size_t(v)]);
        }
        return out;
    }

    const Op& op(std::int32_t v) const { return m_op[std::size_t(v)]; }

  private:
    void link(std::int32_t a, std::int32_t b) {
        m_next[std::size_t(a)] = b;
        m_prev[std::size_t(b)] = a;
    }

    /// The ends of the dependency edges of the cycle closed by the edge `from` -> `to`.
    static std::vector<std::int32_t> endsOf(std::int32_t from, std::int32_t to, bool dependency,
                                            const std::vector<std::int32_t>& parent,
                                            const std::vector<std::uint8_t>& viaDependency) {
        std::vector<std::int32_t> ends;
        if (dependency) ends.insert(ends.end(), {from, to});
        for (std::int32_t v = from; v != to; v = parent[std::size_t(v)])
            if (viaDependency[std::size_t(v)]) ends.insert(ends.end(), {parent[std::size_t(v)], v});
        std::sort(ends.begin(), ends.end());
        ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
        return ends;
    }

    const Schedule& m_s;
    OpIndex m_index;
    std::vector<Op> m_op;                     // [gid]
    std::vector<std::uint8_t> m_movable;      // [gid]
    std::vector<std::uint8_t> m_kept;         // [gid] in its device's chain
    std::vector<std::int32_t> m_next;         // [gid] next kept op of its device
    std::vector<std::int32_t> m_prev;         // [gid] previous kept op of its device
    std::vector<std::size_t> m_consumerStart; // [gid] first of its consumers in m_consumers
    std::vector<std::int32_t> m_consumers;
};

/// Depth-first: take out one of the current cycle's ends, up to `depth` more ops.
class Search {
  public:
    Search(OrderGraph& graph, std::size_t budget) : m_graph(graph), m_budget(budget) {}

    /// True when `depth` more ops taken out make the order acyclic (they are in `out`).
    bool run(std::size_t depth, std::vector<std::int32_t>& out) {
        if (m_steps >= m_budget) {
            m_exhausted = true;
            return false;
        }
        ++m_steps;
        // An op before its own producer is the cheapest cycle to branch on (two ways), and the
        // inversions that share no op bound the moves still needed.
        std::pair<std::int32_t, std::int32_t> inversion;
        const std::size_t needed = m_graph.localInversions(inversion);
        if (needed > depth) return false;
        const std::vector<std::int32_t> ends =
            inversion.first != kNoOp ? std::vector<std::int32_t>{inversion.first, inversion.second}
                                     : m_graph.cycleEnds();
        if (ends.empty()) return true;
        if (depth == 0) return false;
        for (const std::int32_t v : ends) {
            if (!m_graph.kept(v) || !m_graph.movable(v)) continue;
            m_graph.takeOut(v);
            out.push_back(v);
            if (run(depth - 1, out)) return true;
            out.pop_back();
            m_graph.putBack(v);
            if (m_exhausted) return false;
        }
        return false;
    }

    std::size_t steps() const { return m_steps; }
    bool exhausted() const { return m_exhausted; }

  private:
    OrderGraph& m_graph;
    std::size_t m_budget;
    std::size_t m_steps = 0;
    bool m_exhausted = false;
};

} // namespace

FewestMoves fewestMoves(const Schedule& schedule, std::size_t maxMoves, std::size_t budget) {
    FewestMoves result;
    OrderGraph graph(schedule);
    Search search(graph, budget);
    std::vector<std::int32_t> moved;
    for (std::size_t depth = 0; depth <= maxMoves; ++depth) {
        if (search.run(depth, moved)) {
            result.found = true;
            break;
        }
        if (search.exhausted()) break;
    }
    result.steps = search.steps();
    result.complete = !search.exhausted();
    if (!result.found) return result;
    // Each moved op after its predecessor in its device's new order, in the order of their new
    // places: the ops before one are then in place when it moves.
    std::vector<std::uint8_t> isMoved(graph.size(), 0);
    for (const std::int32_t v : moved) isMoved[std::size_t(v)] = 1;
    for (const std::vector<std::int32_t>& order : graph.orders())
        for (std::size_t i = 0; i < order.size(); ++i) {
            if (!isMoved[std::size_t(order[i])]) continue;
            Edit edit;
            edit.kind = EditKind::Move;
            edit.op = graph.op(order[i]);
            if (i == 0) {
                edit.anchor = MoveAnchor::Index;
                edit.index = 0;
            } else {
                edit.anchor = MoveAnchor::After;
                edit.other = graph.op(order[i - 1]);
            }
            result.moves.push_back(edit);
        }
    return result;
}

} // namespace stagecraft
