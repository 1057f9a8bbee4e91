// The ZB-V heuristic of the zero-bubble paper, after the rules in schedules.md §10.3. Ops are
// named as the heuristic names them: per device a forward "chunk" 0 (stage r, down the V) and 1
// (stage 2p-1-r, back up), and backward and W "chunks" in the order they run: 0 is the backward of
// stage 2p-1-r (it flows down the devices), 1 that of stage r (it flows up).
#include "generators/zb_v_heuristic.h"

#include "generators/generators.h"

#include <algorithm>
#include <array>
#include <deque>

namespace stagecraft::zb {

namespace {

enum Cat { kForward = 0, kBackward = 1, kWeight = 2 };
constexpr double kEps = 1e-9;
constexpr int kMaxRetries = 64; // re-runs with the bubble allowance; each must improve

struct Op3 {
    int cat, chunk, mb;
};

class VTry {
  public:
    VTry(const Pipe& pipe, bool fillForward, bool fillBackward, std::vector<double> approved)
        : P(pipe), n(pipe.devices), m(pipe.microbatches), fillF(fillForward), fillB(fillBackward),
          m_approved(std::move(approved)), m_end(std::size_t(6) * std::size_t(n) * std::size_t(m), -1.0),
          m_count(std::size_t(n)), m_cur(std::size_t(n), 0.0), m_mem(std::size_t(n), 0.0),
          m_bubble(std::size_t(n), 0.0), m_pending(std::size_t(n)) {
        order.resize(std::size_t(n));
        m_maxApproved = m_approved.empty() ? -1.0 : *std::max_element(m_approved.begin(), m_approved.end());
        if (m_approved.empty()) m_approved.assign(std::size_t(n), -1.0);
    }

    /// Runs the heuristic; false when a step breaks a rule (memory, a dependency not yet run).
    bool run() {
        for (int i = 0; i < n; ++i)
            if (!put(kForward, 0, i)) return false;
        // Warm-up: chunk-0 forwards while the chunk-1 input has not arrived and memory allows.
        for (int i = n - 1; i >= 0; --i) {
            if (i < n - 1) {
                const double arrives = end(kForward, 1, i + 1, 0) + P.comm;
                while (m_mem[std::size_t(i)] + memory(kForward, 0, i) * (2 + 2 * i) <= P.limit + kEps &&
                       m_cur[std::size_t(i)] + cost(kForward, 0, i) <= arrives + kEps &&
                       count(i, kForward, 0) < m)
                    for (int j = 0; j <= i; ++j)
                        if (!put(kForward, 0, j)) return false;
            }
            if (!put(kForward, 1, i)) return false;
        }
        // Balance: no device holds more forwards than the one before it.
        int chunk = 0;
        for (int i = 1; i < n; ++i) {
            auto unbalanced = [&] {
                const int here = count(i, kForward, 0) + count(i, kForward, 1);
                const int before = count(i - 1, kForward, 0) + count(i - 1, kForward, 1);
                return here < before ||
                       (count(i, kForward, 1) <= count(i - 1, kForward, 1) && count(i - 1, kForward, 1) < m);
            };
            int idle = 0;
            while (unbalanced()) {
                bool placed = false;
                for (int j = n - 1; j >= i; --j)
                    if (count(j, kForward, chunk) < m) {
                        if (!put(kForward, chunk, j)) return false;
                        placed = true;
                    }
                chunk = 1 - chunk;
                idle = placed ? 0 : idle + 1;
                if (idle >= 2) return false; // nothing left to place: the rule cannot be met
            }
        }
        for (int round = 0; round < 2 * m; ++round) {
            if (!backwardRound() || !forwardRound()) return false;
        }
        for (int i = 0; i < n; ++i)
            while (!m_pending[std::size_t(i)].empty())
                if (!putW(i)) return false;
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < 6; ++k)
                if (m_count[std::size_t(i)][std::size_t(k)] != m) return false;
        return true;
    }

    double maxBubble(int device = -1) const {
        double most = *std::max_element(m_bubble.begin(), m_bubble.end());
        if (device >= 0) most = std::max(most, m_maxApproved - m_approved[std::size_t(device)]);
        return most;
    }
    const std::vector<double>& bubbles() const { return m_bubble; }

    std::vector<std::vector<Op3>> order;

  private:
    int stageOf(int cat, int chunk, int device) const {
        return (cat == kForward) == (chunk == 0) ? device : 2 * n - 1 - device;
    }
    double cost(int cat, int chunk, int device) const {
        const std::size_t s = std::size_t(stageOf(cat, chunk, device));
        return cat == kForward ? P.f[s] : cat == kBackward ? P.b[s] : P.w[s];
    }
    double memory(int cat, int chunk, int device) const {
        const double a = P.activation[std::size_t(stageOf(cat, chunk, device))];
        return cat == kForward ? a : cat == kBackward ? -(1 - P.rho) * a : -P.rho * a;
    }
    std::size_t id(int cat, int chunk, int device, int mb) const {
        return ((std::size_t(cat) * 2 + std::size_t(chunk)) * std::size_t(n) + std::size_t(device)) *
                   std::size_t(m) +
               std::size_t(mb);
    }
    double end(int cat, int chunk, int device, int mb) const {
        return mb < m ? m_end[id(cat, chunk, device, mb)] : -1.0;
    }
    int count(int device, int cat, int chunk) const {
        return m_count[std::size_t(device)][std::size_t(cat) * 2 + std::size_t(chunk)];
    }

    bool put(int cat, int chunk, int i) {
        const int mb = count(i, cat, chunk);
        if (mb >= m || m_mem[std::size_t(i)] + memory(cat, chunk, i) > P.limit + kEps) return false;
        // Its own earlier part on this device: F1 after F0, B0 after F1, B1 after B0, W after its B.
        if (cat != kForward || chunk != 0) {
            const int last = cat * 2 + chunk - 1;
            const double before =
                cat < kWeight ? end(last / 2, last % 2, i, mb) : end(kBackward, chunk, i, mb);
            if (before < 0) return false;
        }
        const double noBubble = m_cur[std::size_t(i)] + cost(cat, chunk, i);
        double at = noBubble;
        if (cat < kWeight) {
            const int from = chunk == 1 ? i + 1 : i - 1; // chunk 1 flows up the devices, chunk 0 down
            if (from >= 0 && from < n) {
                const double input = end(cat, chunk, from, mb);
                if (input < 0) return false;
                at = std::max(at, input + P.comm + cost(cat, chunk, i));
            }
        }
        if (count(i, kForward, 0) > 0) m_bubble[std::size_t(i)] += at - noBubble;
        m_end[id(cat, chunk, i, mb)] = at;
        m_cur[std::size_t(i)] = at;
        m_mem[std::size_t(i)] += memory(cat, chunk, i);
        order[std::size_t(i)].push_back({cat, chunk, mb});
        if (cat == kBackward) m_pending[std::size_t(i)].push_back(chunk);
        ++m_count[std::size_t(i)][std::size_t(cat) * 2 + std::size_t(chunk)];
        return true;
    }

    bool putW(int i) {
        auto& pending = m_pending[std::size_t(i)];
        if (pending.empty()) return false;
        const int chunk = pending.front();
        pending.pop_front();
        return put(kWeight, chunk, i);
    }

    /// Before an op whose input comes at `input` (negative: unknown or none), fill the gap with W:
    /// every W that ends before the input arrives, and one more when the gap is larger than the
    /// bubble this device is allowed (`fill`).
    bool fillGap(int i, double input, bool fill) {
        if (input < 0) return true;
        auto& pending = m_pending[std::size_t(i)];
        while (!pending.empty() &&
               input + P.comm >= m_cur[std::size_t(i)] + cost(kWeight, pending.front(), i) - kEps)
            if (!putW(i)) return false;
        if (!pending.empty() && fill &&
            input + P.comm - m_cur[std::size_t(i)] > maxBubble(i) - m_bubble[std::size_t(i)] + kEps)
            return putW(i);
        return true;
    }

    bool backwardRound() {
        for (int i = 0; i < n; ++i)
            while (m_mem[std::size_t(i)] + memory(kBackward, 0, i) > P.limit + kEps)
                if (!putW(i)) return false;
        std::vector<int> first, second; // devices running backward chunk 0, chunk 1
        for (int i = 0; i < n; ++i) {
            // Chunk 1 once this device has run more chunk-0 backwards than chunk-1 ones and the
            // chunk-1 gradient is there (or chunk 0 is done).
            const bool secondReady = count(i, kBackward, 1) < count(i, kBackward, 0) &&
                                     (i == n - 1 || end(kBackward, 1, i + 1, count(i, kBackward, 1)) >= 0 ||
                                      count(i, kBackward, 0) >= m);
            (secondReady ? second : first).push_back(i);
        }
        std::vector<std::pair<int, int>> steps;
        for (auto it = second.rbegin(); it != second.rend(); ++it) steps.emplace_back(*it, 1);
        for (int i : first) steps.emplace_back(i, 0);
        for (const auto& [i, chunk] : steps) {
            double input = -1;
            if (chunk == 1 && i < n - 1) input = end(kBackward, 1, i + 1, count(i, kBackward, 1));
            if (chunk == 0 && i > 0) input = end(kBackward, 0, i - 1, count(i, kBackward, 0));
            if (!fillGap(i, input, chunk == 1 || fillB) || !put(kBackward, chunk, i)) return false;
        }
        return true;
    }

    bool forwardRound() {
        for (int i = 0; i < n; ++i) {
            if (count(i, kForward, 1) >= m) continue;
            // Chunk 1 when it is behind chunk 0 and its input is there; else chunk 0 when it is not
            // ahead, or its input is there.
            const bool secondReady = count(i, kForward, 1) < count(i, kForward, 0) &&
                                     (i == n - 1 || end(kForward, 1, i + 1, count(i, kForward, 1)) >= 0);
            const bool firstReady = count(i, kForward, 1) >= count(i, kForward, 0) ||
                                    (count(i, kForward, 0) < m &&
                                     (i == 0 || end(kForward, 0, i - 1, count(i, kForward, 0)) >= 0));
            if (!secondReady && !firstReady) continue;
            const int chunk = secondReady ? 1 : 0;
            while (m_mem[std::size_t(i)] + memory(kForward, chunk, i) > P.limit + kEps)
                if (!putW(i)) return false;
            double input = -1;
            if (chunk == 0 && i > 0) input = end(kForward, 0, i - 1, count(i, kForward, 0));
            if (chunk == 1 && i < n - 1) input = end(kForward, 1, i + 1, count(i, kForward, 1));
            if (!fillGap(i, input, fillF) || !put(kForward, chunk, i)) return false;
        }
        return true;
    }

    const Pipe& P;
    int n, m;
    bool fillF, fillB;
    std::vector<double> m_approved;
    double m_maxApproved = -1;
    std::vector<double> m_end;
    std::vector<std::array<int, 6>> m_count;
    std::vector<double> m_cur, m_mem, m_bubble;
    std::vector<std::deque<int>> m_pending;
};

/// One setting of the grid: run, then re-run with each device's bubble as its allowance while the
/// largest bubble shrinks.
std::optional<VTry> best(const Pipe& pipe, bool fillF, bool fillB) {
    VTry first(pipe, fillF, fillB, {});
    if (!first.run()) return std::nullopt;
    std::optional<VTry> kept(std::move(first));
    for (int retry = 0; retry < kMaxRetries; ++retry) {
        VTry again(pipe, fillF, fillB, kept->bubbles());
        if (!again.run() || !(again.maxBubble() < kept->maxBubble() - kEps)) break;
        kept.emplace(std::move(again));
    }
    return kept;
}

} // namespace

std::vector<Schedule> zbVHeuristic(const Pipe& pipe, const Schedule& shape) {
    std::vector<Schedule> out;
    const int n = pipe.devices;
    if (pipe.stages() != 2 * n) return out;
    for (bool fillB : {true, false})
        for (bool fillF : {true, false}) {
            const std::optional<VTry> found = best(pipe, fillF, fillB);
            if (!found) continue;
            Schedule s = makeSchedule(shape.name, n, pipe.microbatches, shape.placement, true);
            for (int i = 0; i < n; ++i)
                for (const Op3& op : found->order[std::size_t(i)]) {
                    const bool down = (op.cat == kForward) == (op.chunk == 0);
                    const OpKind kind = op.cat == kForward    ? OpKind::F
                                        : op.cat == kBackward ? OpKind::B
                                                              : OpKind::W;
                    pushOp(s, i, kind, 0, down ? i : 2 * n - 1 - i, op.mb);
                }
            if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
        }
    return out;
}

} // namespace stagecraft::zb
