// The ZB paper's automatic heuristic (ZB-1p / ZB-2p), after the rules in schedules.md §10.2. Each
// op is timed as it is placed, with the simulator's semantics (a device runs its ops in order, an
// op starts when the device is free and its input has arrived), so the order's timing is the one
// zb-auto's replay gives it.
#include "generators/zb_heuristic.h"

#include "generators/generators.h"

#include <algorithm>
#include <array>
#include <utility>

namespace stagecraft::zb {

namespace {

constexpr double kEps = 1e-9;

enum Kind { kF = 0, kB = 1, kW = 2 };

class Heuristic {
  public:
    Heuristic(const Pipe& pipe, bool bubbleBeforeFirstB, bool backwardPriority, bool fillWithinBudget)
        : P(pipe), p(pipe.devices), m(pipe.microbatches), m_bubbleBeforeFirstB(bubbleBeforeFirstB),
          m_backwardPriority(backwardPriority), m_fillWithinBudget(fillWithinBudget),
          m_endF(std::size_t(p) * std::size_t(m), 0.0), m_endB(std::size_t(p) * std::size_t(m), 0.0),
          m_free(std::size_t(p), 0.0), m_mem(std::size_t(p), 0.0), m_bubble(std::size_t(p), 0.0),
          m_order(std::size_t(p)) {
        for (auto& c : m_count) c.assign(std::size_t(p), 0);
    }

    /// Places every op; false when a step breaks a rule (memory that no W can free, an input that
    /// has not been produced).
    bool run() {
        for (int i = 0; i < m; ++i)
            if (!(i == 0 ? firstMicrobatch() : nextMicrobatch(i))) return false;
        for (int j = 0; j < p; ++j)
            while (count(kW, j) < m) put(kW, j);
        return true;
    }

    /// The largest device span (first op's start to last op's end) and the makespan.
    std::pair<double, double> spanAndMakespan() const {
        double span = 0, makespan = 0;
        for (int j = 0; j < p; ++j) {
            span = std::max(span, m_free[std::size_t(j)] - (endF(j, 0) - P.f[j]));
            makespan = std::max(makespan, m_free[std::size_t(j)]);
        }
        return {span, makespan};
    }

    Schedule schedule(const Schedule& shape) const {
        Schedule s = shape;
        for (int d = 0; d < p; ++d) {
            auto& ops = s.order[std::size_t(d)];
            ops.clear();
            reserveOrder(s, d, m_order[std::size_t(d)].size());
            std::array<int, 3> next{0, 0, 0};
            for (int kind : m_order[std::size_t(d)])
                pushOp(s, d, kind == kF ? OpKind::F : kind == kB ? OpKind::B : OpKind::W, 0, d, next[kind]++);
        }
        return s;
    }

  private:
    const Pipe& P;
    const int p, m;
    const bool m_bubbleBeforeFirstB, m_backwardPriority, m_fillWithinBudget;
    std::vector<double> m_endF, m_endB;      // [stage * m + mb]
    std::vector<double> m_free, m_mem;       // per device: end of its last op, activations held
    std::vector<double> m_bubble;            // per device: idle time since its first forward
    double m_maxBubble = 0;                  // the largest of them
    std::array<std::vector<int>, 3> m_count; // ops placed, by kind and device
    std::vector<std::vector<int>> m_order;   // per device: the kinds in order

    int count(int kind, int j) const { return m_count[std::size_t(kind)][std::size_t(j)]; }
    double cost(int kind, int j) const { return kind == kF ? P.f[j] : kind == kB ? P.b[j] : P.w[j]; }
    double delta(int kind, int j) const {
        const double a = P.activation[j];
        return kind == kF ? a : kind == kB ? -a * (1 - P.rho) : -a * P.rho;
    }
    bool fits(int j, double add) const { return m_mem[std::size_t(j)] + add <= P.limit + kEps; }
    double maxBubble() const { return m_maxBubble; }
    double endF(int j, int mb) const { return m_endF[std::size_t(j) * m + mb]; }
    double endB(int j, int mb) const { return m_endB[std::size_t(j) * m + mb]; }

    void put(int kind, int j) {
        const int mb = count(kind, j);
        double start = m_free[std::size_t(j)];
        if (kind == kF && j > 0) start = std::max(start, endF(j - 1, mb) + P.comm);
        if (kind == kB && j + 1 < p) start = std::max(start, endB(j + 1, mb) + P.comm);
        if (count(kF, j) > 0) {
            m_bubble[std::size_t(j)] += start - m_free[std::size_t(j)];
            m_maxBubble = std::max(m_maxBubble, m_bubble[std::size_t(j)]); // bubbles only grow
        }
        const double end = start + cost(kind, j);
        if (kind == kF) m_endF[std::size_t(j) * m + mb] = end;
        if (kind == kB) m_endB[std::size_t(j) * m + mb] = end;
        m_free[std::size_t(j)] = end;
        m_mem[std::size_t(j)] += delta(kind, j);
        ++m_count[std::size_t(kind)][std::size_t(j)];
        m_order[std::size_t(j)].push_back(kind);
    }

    /// W ops before the op of `kind` on device j whose input arrives at `arrives`: W while memory
    /// would overflow; W while one ends before the input arrives; then one more when a gap is left
    /// and it exceeds the bubble budget (the largest bubble less the device's own), or is within it
    /// and the setting fills such gaps too.
    bool fillBefore(int kind, int j, double arrives, bool haveInput) {
        while (!fits(j, delta(kind, j))) {
            if (count(kW, j) >= count(kB, j)) return false;
            put(kW, j);
        }
        if (!haveInput) return true;
        while (count(kW, j) < count(kB, j) && m_free[std::size_t(j)] + P.w[j] <= arrives) put(kW, j);
        if (count(kW, j) < count(kB, j) && m_free[std::size_t(j)] < arrives) {
            const bool withinBudget =
                arrives - m_free[std::size_t(j)] <= maxBubble() - m_bubble[std::size_t(j)];
            if (!withinBudget || m_fillWithinBudget) put(kW, j);
        }
        return true;
    }

    bool firstMicrobatch() {
        for (int j = 0; j < p; ++j) put(kF, j);
        // Extra warm-up forwards per device, from the last device back: as many as memory allows
        // before the first backward can arrive.
        std::vector<int> extra(std::size_t(p), 0);
        double backwardEnd = endF(p - 1, 0) + P.b[p - 1];
        for (int j = p - 2; j >= 0; --j) {
            double mem = m_mem[std::size_t(j)], t = m_free[std::size_t(j)];
            const double arrives = backwardEnd + P.comm;
            while (count(kF, j) + extra[std::size_t(j)] < m && mem + P.activation[j] <= P.limit + kEps) {
                if (m_bubbleBeforeFirstB ? t + P.f[j] > arrives : t >= arrives) break;
                mem += P.activation[j];
                t += P.f[j];
                ++extra[std::size_t(j)];
            }
            backwardEnd = std::max(t, arrives) + P.b[j];
        }
        // Each device fewer than the one before it (unless it has run out of micro-batches).
        for (int j = 1; j < p; ++j)
            while (extra[std::size_t(j)] > 0 && extra[std::size_t(j)] >= extra[std::size_t(j - 1)] &&
                   count(kF, j) + extra[std::size_t(j)] < m)
                --extra[std::size_t(j)];
        for (int j = 0; j < p; ++j)
            for (int k = 0; k < extra[std::size_t(j)]; ++k) put(kF, j);
        for (int j = p - 1; j >= 0; --j) put(kB, j);
        return true;
    }

    bool nextMicrobatch(int i) {
        std::vector<char> forward(std::size_t(p), 0);
        for (int j = 0; j < p; ++j) {
            if (count(kF, j) >= m) continue;
            forward[std::size_t(j)] = 1;
            // Backward priority: a device two or more forwards ahead of the next one may hold its
            // forward back when it would delay the backward coming from there.
            if (!m_backwardPriority || j + 1 >= p || count(kF, j) < count(kF, j + 1) + 2) continue;
            const double nextBackward = m_free[std::size_t(j + 1)] + P.f[j + 1] + P.b[j + 1] + P.comm;
            if (m_free[std::size_t(j)] >= nextBackward) {
                forward[std::size_t(j)] = 0;
                continue;
            }
            double mem = m_mem[std::size_t(j)] + P.activation[j], wTime = 0;
            for (int k = count(kW, j); mem > P.limit + kEps && k < count(kB, j); ++k) {
                wTime += P.w[j];
                mem += delta(kW, j);
            }
            if (m_free[std::size_t(j)] + P.f[j] + wTime <= nextBackward) continue;
            if (nextBackward - m_free[std::size_t(j)] <= maxBubble() - m_bubble[std::size_t(j)])
                forward[std::size_t(j)] = 0;
        }
        // A device runs a forward only when every later device does.
        for (int j = p - 2; j >= 0; --j)
            forward[std::size_t(j)] = std::min(forward[std::size_t(j)], forward[std::size_t(j + 1)]);
        for (int j = 0; j < p; ++j) {
            if (!forward[std::size_t(j)]) continue;
            const int mb = count(kF, j);
            if (j > 0 && count(kF, j - 1) <= mb) return false; // the input does not exist yet
            if (!fillBefore(kF, j, j > 0 ? endF(j - 1, mb) + P.comm : 0, j > 0)) return false;
            put(kF, j);
        }
        for (int j = p - 1; j >= 0; --j) {
            if (count(kB, j) != i || count(kF, j) <= i) return false;
            if (!fillBefore(kB, j, j + 1 < p ? endB(j + 1, i) + P.comm : 0, j + 1 < p)) return false;
            // After its last forward the first device flushes its W before each backward.
            if (j == 0 && count(kF, 0) == m)
                while (count(kW, 0) < count(kB, 0)) put(kW, 0);
            put(kB, j);
        }
        return true;
    }
};

} // namespace

std::vector<HeuristicOrder> zbPaperHeuristic(const Pipe& pipe, const Schedule& shape, bool bestOnly) {
    std::vector<HeuristicOrder> out;
    for (int s = 0; s < pipe.stages(); ++s)
        if (pipe.device[s] != s) return out; // one stage per device, in order
    for (int bubbleBeforeFirstB : {1, 0})
        for (int backwardPriority : {1, 0})
            for (int fillWithinBudget : {1, 0}) {
                Heuristic h(pipe, bubbleBeforeFirstB, backwardPriority, fillWithinBudget);
                if (!h.run()) continue;
                const auto [span, makespan] = h.spanAndMakespan();
                // The paper keeps the first setting with the smallest span; ties here go to the
                // shorter makespan.
                const bool better = out.empty() || span < out.front().span ||
                                    (span == out.front().span && makespan < out.front().makespan);
                if (!bestOnly)
                    out.push_back({h.schedule(shape), span, makespan});
                else if (better)
                    out.assign(1, {h.schedule(shape), span, makespan});
            }
    return out;
}

} // namespace stagecraft::zb
