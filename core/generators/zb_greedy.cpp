#include "generators/zb_greedy.h"

#include "error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <queue>
#include <stdexcept>
#include <utility>

namespace stagecraft::zb {

namespace {

constexpr double kInf = kNoLimit;
constexpr double kMemEps = 1e-9;
// Timed ops the search may spend: the grid and the local improvement stop there, so p = 128,
// m = 1024 stays within a few seconds.
constexpr double kDecisionBudget = 1e7;
constexpr int kMaxEvaluations = 240;

enum Kind : std::uint8_t { kF = 0, kB = 1, kW = 2 };

/// A greedy policy: per-device warm-up caps (micro-batches started on the device whose first
/// stage's B has not run) and the W tolerance (a W may end this many of its own durations after
/// the next input can arrive).
struct Policy {
    std::vector<int> cap;
    std::vector<double> tolerance;
    std::vector<char> forwardFirst; ///< an F whose input is there goes before a B whose gradient is
    bool protectLast = false;       ///< no W tolerance before the last micro-batch's B
    std::string label;
};

std::string format(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

/// Times orders of one pipe, built greedily from a policy or replayed from a schedule. Buffers are
/// reused across evaluations. An op is encoded as stage * 4 + kind.
class Evaluator {
  public:
    explicit Evaluator(const Pipe& pipe) : P(pipe), m(pipe.microbatches) {
        const int S = P.stages();
        onDevice.resize(std::size_t(P.devices));
        for (int s = 0; s < S; ++s) onDevice[std::size_t(P.device[s])].push_back(s);
        offset.assign(std::size_t(P.devices) + 1, 0);
        for (int d = 0; d < P.devices; ++d)
            offset[d + 1] = offset[d] + 3 * std::size_t(m) * onDevice[std::size_t(d)].size();
        codes.resize(offset.back());
        endF.resize(std::size_t(S) * m);
        endB.resize(std::size_t(S) * m);
        pendingW.resize(std::size_t(S) * m);
        wHead.resize(std::size_t(P.devices));
        wTail.resize(std::size_t(P.devices));
        wOffset.assign(std::size_t(P.devices) + 1, 0);
        for (int d = 0; d < P.devices; ++d)
            wOffset[d + 1] = wOffset[d] + std::size_t(m) * onDevice[std::size_t(d)].size();
        for (int d = 0; d < P.devices; ++d) {
            const auto& st = onDevice[std::size_t(d)];
            if (st.empty()) throw std::logic_error("zb search: a device without stages");
        }
    }

    Outcome greedy(const Policy& policy);
    Outcome replay(const Schedule& order);
    /// The last timed order as a schedule shaped like `shape`.
    Schedule schedule(const Schedule& shape) const;

  private:
    /// What device d can run at time t: the deepest ready B and F (-1 when none), when the next
    /// input arrives (or an estimate when its producer has not run), and whether memory held a
    /// forward back or forwards and backwards remain.
    struct Choice {
        int pickB = -1, pickF = -1;
        double next = kInf, estimate = kInf;
        bool memoryBlocked = false, moreFB = false;
    };
    Choice choose(int d, double t, const Policy& policy) const;
    /// Whether stage s of device d may start a forward: the head stage under the policy's cap of
    /// micro-batches in flight, every stage within the memory limit (noted in `c` when not).
    bool forwardAllowed(int d, int s, const Policy& policy, Choice& c) const;
    /// Whether a device with nothing else ready runs its oldest pending W now.
    bool wRunsNow(int d, double t, const Policy& policy, const Choice& c) const;
    /// The first device with a pending W, when every device waits on another.
    int forcedW() const;

    const Pipe& P;
    const int m;
    std::vector<std::vector<int>> onDevice; // stages of each device, ascending
    std::vector<std::size_t> offset;        // codes of device d start at offset[d]
    std::vector<std::uint32_t> codes;
    std::vector<double> endF, endB;
    std::vector<int> nf, nb, nw, count;
    std::vector<double> freeT, first, last, dt, mem;
    // W queue per device: stages whose B ran, in order (each W runs for the stage's oldest B).
    std::vector<int> pendingW;
    std::vector<std::size_t> wOffset, wHead, wTail;
    double peak = 0;

    void reset() {
        const std::size_t S = std::size_t(P.stages()), D = std::size_t(P.devices);
        nf.assign(S, 0);
        nb.assign(S, 0);
        nw.assign(S, 0);
        count.assign(D, 0);
        freeT.assign(D, 0.0);
        first.assign(D, 0.0);
        last.assign(D, 0.0);
        dt.assign(D, kInf);
        mem.assign(D, 0.0);
        std::fill(wHead.begin(), wHead.end(), 0);
        std::fill(wTail.begin(), wTail.end(), 0);
        peak = 0;
    }
    double commBetween(int from, int to) const { return P.device[from] == P.device[to] ? 0.0 : P.comm; }
    double readyF(int s) const {
        if (nf[s] >= m) return kInf;
        if (s == 0) return 0;
        return nf[s - 1] > nf[s] ? endF[std::size_t(s - 1) * m + nf[s]] + commBetween(s - 1, s) : kInf;
    }
    double readyB(int s) const {
        if (nb[s] >= nf[s]) return kInf;
        if (s == P.stages() - 1) return endF[std::size_t(s) * m + nb[s]];
        return nb[s + 1] > nb[s] ? endB[std::size_t(s + 1) * m + nb[s]] + commBetween(s + 1, s) : kInf;
    }
    /// Memory device d must keep free for the later-stage forwards of micro-batches it started.
    double reserved(int d, int extraStarted) const {
        const auto& st = onDevice[std::size_t(d)];
        double r = 0;
        for (std::size_t k = 1; k < st.size(); ++k)
            r += P.activation[st[k]] * double(nf[st[0]] + extraStarted - nf[st[k]]);
        return r;
    }
    void run(int d, int s, Kind kind, double t) {
        double duration = 0;
        const std::size_t base = std::size_t(s) * m;
        switch (kind) {
        case kF:
            duration = P.f[s];
            endF[base + nf[s]] = t + duration;
            ++nf[s];
            mem[d] += P.activation[s];
            peak = std::max(peak, mem[d]);
            break;
        case kB:
            duration = P.b[s];
            endB[base + nb[s]] = t + duration;
            ++nb[s];
            mem[d] -= P.activation[s] * (1 - P.rho);
            pendingW[wOffset[d] + wTail[d]++] = s;
            break;
        case kW:
            duration = P.w[s];
            ++nw[s];
            mem[d] -= P.activation[s] * P.rho;
            break;
        }
        if (count[d] == 0) first[d] = t;
        codes[offset[d] + std::size_t(count[d]++)] = std::uint32_t(s) * 4 + kind;
        freeT[d] = t + duration;
        last[d] = t + duration;
    }
    void runW(int d, double t) { run(d, pendingW[wOffset[d] + wHead[d]++], kW, t); }
    bool hasW(int d) const { return wHead[d] < wTail[d]; }
    bool finished(int d) const { return std::size_t(count[d]) == offset[d + 1] - offset[d]; }
    Outcome outcome() const {
        Outcome o;
        o.span = 0;
        o.makespan = 0;
        for (int d = 0; d < P.devices; ++d) {
            o.span = std::max(o.span, last[d] - first[d]);
            o.makespan = std::max(o.makespan, last[d]);
        }
        o.peak = peak;
        return o;
    }
};

Evaluator::Choice Evaluator::choose(int d, double t, const Policy& policy) const {
    Choice c;
    const auto& st = onDevice[std::size_t(d)];
    // The deepest stage first: it feeds the longest remaining chain.
    for (auto it = st.rbegin(); it != st.rend(); ++it) {
        const int s = *it;
        if (nb[s] < m) c.moreFB = true;
        const double r = readyB(s);
        if (r <= t) {
            if (c.pickB < 0) c.pickB = s;
        } else if (r < kInf)
            c.next = std::min(c.next, r);
        else if (nb[s] < nf[s] && s + 1 < P.stages() && P.device[s + 1] != d)
            c.estimate = std::min(c.estimate, std::max(freeT[P.device[s + 1]], t) + P.b[s + 1] + P.comm);
    }
    if (c.pickB >= 0 && !policy.forwardFirst[d]) return c;
    for (auto it = st.rbegin(); it != st.rend() && c.pickF < 0; ++it) {
        const int s = *it;
        if (nf[s] >= m) continue;
        c.moreFB = true;
        if (!forwardAllowed(d, s, policy, c)) continue;
        const double r = readyF(s);
        if (r <= t)
            c.pickF = s;
        else if (r < kInf)
            c.next = std::min(c.next, r);
        else if (s > 0 && P.device[s - 1] != d)
            c.estimate = std::min(c.estimate, std::max(freeT[P.device[s - 1]], t) + P.f[s - 1] + P.comm);
    }
    return c;
}

bool Evaluator::forwardAllowed(int d, int s, const Policy& policy, Choice& c) const {
    const bool head = s == onDevice[std::size_t(d)][0];
    if (head && nf[s] - nb[s] >= policy.cap[d]) return false;
    const double needed = mem[d] + P.activation[s] + (head ? reserved(d, 1) : 0.0);
    if (needed > P.limit + kMemEps) {
        c.memoryBlocked = true;
        return false;
    }
    return true;
}

bool Evaluator::wRunsNow(int d, double t, const Policy& policy, const Choice& c) const {
    // A W now, unless it would delay the next input by more than the tolerance. The last
    // micro-batch's backward is the end of the critical path: never delay it.
    const double arrival = c.next < kInf ? c.next : c.estimate;
    const double w = P.w[pendingW[wOffset[d] + wHead[d]]];
    bool lastBackward = false;
    if (policy.protectLast)
        for (int s : onDevice[std::size_t(d)]) lastBackward |= nb[s] == m - 1 && nf[s] == m;
    const bool fits = t + w <= arrival + (lastBackward ? 0.0 : policy.tolerance[d] * w);
    return c.memoryBlocked || !c.moreFB || fits;
}

int Evaluator::forcedW() const {
    for (int d = 0; d < P.devices; ++d)
        if (hasW(d)) return d;
    throw std::logic_error("zb search: no device can go on");
}

Outcome Evaluator::greedy(const Policy& policy) {
    reset();
    using Entry = std::pair<double, int>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
    auto wake = [&](int d, double t) {
        if (t < dt[d]) {
            dt[d] = t;
            queue.push({t, d});
        }
    };
    for (int d = 0; d < P.devices; ++d) wake(d, 0.0);
    int done = 0;
    while (done < P.devices) {
        if (queue.empty()) {
            // Every device waits for a neighbour that waits too: only a W can break it (kept so the
            // greedy cannot stall; the rules below do not get here).
            const int forced = forcedW();
            double now = 0;
            for (int d = 0; d < P.devices; ++d) now = std::max(now, freeT[d]);
            runW(forced, std::max(freeT[forced], now));
            if (finished(forced)) ++done;
            wake(forced, freeT[forced]);
            continue;
        }
        const auto [t, d] = queue.top();
        queue.pop();
        if (t != dt[d]) continue; // superseded
        dt[d] = kInf;
        if (finished(d)) continue;
        const Choice c = choose(d, t, policy);
        if (c.pickF >= 0 && (c.pickB < 0 || policy.forwardFirst[d])) {
            run(d, c.pickF, kF, t);
        } else if (c.pickB >= 0) {
            run(d, c.pickB, kB, t);
        } else if (hasW(d) && wRunsNow(d, t, policy, c)) {
            runW(d, t);
        } else {
            if (c.next < kInf) wake(d, std::max(c.next, t));
            continue; // parked: a neighbour's next op wakes it
        }
        if (finished(d)) ++done;
        wake(d, freeT[d]);
        if (d > 0) wake(d - 1, std::max(freeT[d - 1], t));
        if (d + 1 < P.devices) wake(d + 1, std::max(freeT[d + 1], t));
    }
    return outcome();
}

Outcome Evaluator::replay(const Schedule& order) {
    reset();
    if (int(order.order.size()) != P.devices) return Outcome{};
    bool progress = true;
    int done = 0;
    std::vector<std::size_t> at(std::size_t(P.devices), 0);
    for (int d = 0; d < P.devices; ++d)
        if (order.order[d].size() != offset[d + 1] - offset[d]) return Outcome{};
    while (progress && done < P.devices) {
        progress = false;
        for (int d = 0; d < P.devices; ++d) {
            const auto& ops = order.order[d];
            while (at[d] < ops.size()) {
                const Op& op = ops[at[d]];
                const int s = op.stage;
                if (s < 0 || s >= P.stages() || P.device[s] != d) return Outcome{};
                double ready = freeT[d];
                Kind kind;
                if (op.kind == OpKind::F) {
                    if (op.mb != nf[s]) return Outcome{};
                    kind = kF;
                    ready = std::max(ready, readyF(s));
                } else if (op.kind == OpKind::B) {
                    if (op.mb != nb[s] || nb[s] >= nf[s]) return Outcome{};
                    kind = kB;
                    ready = std::max(ready, readyB(s));
                } else if (op.kind == OpKind::W) {
                    if (op.mb != nw[s] || nw[s] >= nb[s]) return Outcome{};
                    kind = kW;
                } else
                    return Outcome{};
                if (ready == kInf) break;
                run(d, s, kind, ready); // a replayed W runs for the stage the order names
                ++at[d];
                progress = true;
                if (at[d] == ops.size()) ++done;
            }
        }
    }
    if (done < P.devices) return Outcome{}; // deadlock
    Outcome o = outcome();
    if (o.peak > P.limit + kMemEps) return Outcome{};
    return o;
}

Schedule Evaluator::schedule(const Schedule& shape) const {
    Schedule s = shape;
    for (auto& ops : s.order) ops.clear();
    std::vector<int> next(std::size_t(P.stages()) * 3, 0);
    for (int d = 0; d < P.devices; ++d) {
        reserveOrder(s, d, offset[d + 1] - offset[d]);
        for (std::size_t i = offset[d]; i < offset[d + 1]; ++i) {
            const int stage = int(codes[i] / 4), kind = int(codes[i] % 4);
            const OpKind op = kind == kF ? OpKind::F : kind == kB ? OpKind::B : OpKind::W;
            pushOp(s, d, op, 0, stage, next[std::size_t(stage) * 3 + kind]++);
        }
    }
    return s;
}

std::vector<Policy> grid(const Pipe& P) {
    std::vector<Policy> out;
    const int p = P.devices, m = P.microbatches;
    // Most promising first: a search cut short by its budget has timed these.
    const int ks[] = {2 * p, p, m, 3 * p, (3 * p + 1) / 2, (p + 1) / 2};
    const int slopes[] = {2, 1, 0};
    const double tolerances[] = {kInf, 0, 0.5};
    for (int protect = 0; protect < 2; ++protect)
        for (int forwardFirst = 0; forwardFirst < 2; ++forwardFirst)
            for (double tol : tolerances)
                for (int k : ks)
                    for (int s : slopes) {
                        Policy policy;
                        policy.cap.resize(std::size_t(p));
                        for (int d = 0; d < p; ++d) policy.cap[d] = std::clamp(k - s * d, 1, m);
                        policy.tolerance.assign(std::size_t(p), tol);
                        policy.forwardFirst.assign(std::size_t(p), char(forwardFirst));
                        policy.protectLast = protect;
                        policy.label = std::string(forwardFirst ? "greedy F-first" : "greedy B-first") +
                                       (protect ? " last-B-first" : "") + " K=" + std::to_string(k) +
                                       " s=" + std::to_string(s) +
                                       " tol=" + (tol == kInf ? std::string("inf") : format(tol, 1));
                        bool duplicate = false;
                        for (const Policy& q : out)
                            duplicate |= q.cap == policy.cap && q.tolerance == policy.tolerance &&
                                         q.forwardFirst == policy.forwardFirst &&
                                         q.protectLast == policy.protectLast;
                        if (!duplicate) out.push_back(std::move(policy));
                    }
    return out;
}

} // namespace

bool Outcome::betterThan(const Outcome& other) const {
    if (other.span == kInf) return span < kInf;
    const double tol = 1e-9 * std::max(1.0, std::abs(other.span));
    if (span < other.span - tol) return true;
    if (span > other.span + tol) return false;
    return makespan < other.makespan - tol;
}

Pipe pipeOf(const GenerateRequest& request, const std::vector<StageSlot>& placement, double limit) {
    Pipe P;
    P.devices = request.params.pp;
    P.microbatches = request.params.microbatches;
    const int S = int(placement.size());
    const double fraction = double(P.devices) / double(S);
    for (int s = 0; s < S; ++s) {
        const StageCost c =
            request.stageCosts.empty() ? StageCost{fraction, fraction, fraction} : request.cost(s);
        P.device.push_back(placement[s].device);
        P.f.push_back(c.f);
        P.b.push_back(c.b);
        P.w.push_back(c.w);
        P.activation.push_back(fraction);
    }
    P.comm = request.comm;
    P.limit = limit > 0 ? limit : kNoLimit;
    P.rho = std::clamp(request.keptForW, 0.0, 1.0);
    return P;
}

namespace {

constexpr double kSlack = 1 + 1e-12;

/// One search of a pipe's order: seeds, a grid of greedy policies, local improvement of the
/// best policy, then of the order itself, each within the evaluation budget.
class Search {
  public:
    Search(const Pipe& P, const Schedule& shape, const SearchOptions& options, const WorkControl& control)
        : P(P), shape(shape), options(options), control(control), evaluator(P),
          ops(3.0 * P.stages() * P.microbatches),
          budget(std::clamp(int(kDecisionBudget / ops), 4, kMaxEvaluations)), candidates(grid(P)),
          planned(std::max(budget, int(candidates.size() + options.seeds.size()))),
          makespanCap(options.makespanCap) {}

    Found run();

  private:
    bool reachedBound() const { return haveBest && best.span <= options.goodEnough * kSlack; }
    bool cancelled() {
        if (control.stopRequested()) found.cancelled = true;
        return found.cancelled;
    }
    int spent() const { return found.evaluations - finalistEvaluations; }
    bool budgetLeft() { return !reachedBound() && !cancelled() && spent() < budget; }
    void tick() {
        ++found.evaluations;
        control.report(std::min(1.0, double(spent()) / planned));
    }
    void consider(const Outcome& o, const std::string& label);
    bool timeFinalists();
    void timeSeeds();
    void timeGrid();
    bool attempt(Policy trial);
    bool improveCaps(int d);
    bool improvePolicyAt(int d);
    void improvePolicy();
    bool moveWeightsOnce(long long& swaps, long long swapBudget);
    void moveWeights();
    void takeFinalists();
    void fallBack();

    const Pipe& P;
    const Schedule& shape;
    const SearchOptions& options;
    const WorkControl& control;
    Evaluator evaluator;
    const double ops;
    const int budget;
    const std::vector<Policy> candidates;
    const int planned;
    double makespanCap;
    Found found;
    Outcome best;
    bool haveBest = false;
    Policy bestPolicy;
    Outcome bestGreedy;
    int finalistEvaluations = 0; ///< outside the budget and the progress
    std::vector<std::pair<Outcome, const std::pair<std::string, Schedule>*>> finalists;
};

void Search::consider(const Outcome& o, const std::string& label) {
    if (o.makespan > makespanCap * kSlack) return;
    if (!haveBest || o.betterThan(best)) {
        best = o;
        haveBest = true;
        found.schedule = evaluator.schedule(shape);
        found.winner = label;
    }
}

/// Finalists: timed first, outside the budget and the progress; one at the lower bound is the
/// answer at once (true), the others are taken at the end where they beat what the search found.
bool Search::timeFinalists() {
    for (const auto& finalist : options.finalists) {
        if (cancelled()) break;
        const Outcome o = evaluator.replay(finalist.second);
        ++found.evaluations;
        ++finalistEvaluations;
        if (o.span == kInf || o.makespan > options.makespanCap * kSlack) continue;
        if (o.span <= options.goodEnough * kSlack) {
            found.schedule = finalist.second;
            found.winner = finalist.first;
            found.outcome = o;
            control.report(1.0);
            return true;
        }
        finalists.emplace_back(o, &finalist);
    }
    return false;
}

void Search::timeSeeds() {
    for (const auto& [label, seed] : options.seeds) {
        if (cancelled()) break;
        const Outcome o = evaluator.replay(seed);
        tick();
        if (o.span == kInf) continue;
        if (options.capMakespanAtFirstSeed && &seed == &options.seeds.front().second)
            makespanCap = std::min(makespanCap, o.makespan);
        consider(o, label);
    }
}

void Search::timeGrid() {
    for (const Policy& policy : candidates) {
        if (!budgetLeft()) break;
        const Outcome o = evaluator.greedy(policy);
        tick();
        if (o.betterThan(bestGreedy)) {
            bestGreedy = o;
            bestPolicy = policy;
        }
        consider(o, policy.label);
    }
}

/// Times a changed policy; keeps it (true) when its greedy order beats the best greedy one.
bool Search::attempt(Policy trial) {
    if (!budgetLeft()) return false;
    const Outcome o = evaluator.greedy(trial);
    tick();
    if (!o.betterThan(bestGreedy)) return false;
    bestGreedy = o;
    bestPolicy = std::move(trial);
    if (bestPolicy.label.find("+local") == std::string::npos) bestPolicy.label += " +local";
    consider(o, bestPolicy.label);
    return true;
}

/// Moves device d's cap, or the caps of d and all after it, by one either way.
bool Search::improveCaps(int d) {
    for (int suffix = 0; suffix < 2; ++suffix)
        for (int delta : {1, -1}) {
            Policy trial = bestPolicy;
            bool changed = false;
            for (int e = d; e < (suffix ? P.devices : d + 1); ++e) {
                const int c = std::clamp(trial.cap[e] + delta, 1, P.microbatches);
                changed |= c != trial.cap[e];
                trial.cap[e] = c;
            }
            if (changed && attempt(std::move(trial))) return true;
        }
    return false;
}

/// Device d's caps, then its F/B preference, then its W tolerance; the first improvement wins.
bool Search::improvePolicyAt(int d) {
    bool improved = improveCaps(d);
    if (!improved) {
        Policy trial = bestPolicy;
        trial.forwardFirst[d] = !trial.forwardFirst[d];
        improved = attempt(std::move(trial));
    }
    for (double tol : {0.0, 0.5, kInf})
        if (!improved && tol != bestPolicy.tolerance[d]) {
            Policy trial = bestPolicy;
            trial.tolerance[d] = tol;
            improved = attempt(std::move(trial));
        }
    return improved;
}

/// Local improvement of the best greedy policy, device by device, until none improves.
void Search::improvePolicy() {
    bool improved = !bestPolicy.cap.empty();
    while (improved && !reachedBound() && spent() < budget && !found.cancelled) {
        improved = false;
        for (int d = 0; d < P.devices && !improved; ++d) improved = improvePolicyAt(d);
    }
}

/// One pass over every device's order: each W moved past a neighbouring F or B, kept when the
/// replayed order is better (within the limit). True when a move was kept.
bool Search::moveWeightsOnce(long long& swaps, long long swapBudget) {
    bool moved = false;
    Schedule& order = found.schedule;
    for (int d = 0; d < P.devices && swaps < swapBudget; ++d) {
        auto& list = order.order[d];
        for (std::size_t i = 0; i + 1 < list.size() && swaps < swapBudget; ++i) {
            Op& a = list[i];
            Op& b = list[i + 1];
            if ((a.kind == OpKind::W) == (b.kind == OpKind::W)) continue;
            if (a.stage == b.stage && a.mb == b.mb) continue; // a B and its own W
            std::swap(a, b);
            ++swaps;
            const Outcome o = evaluator.replay(order);
            tick();
            if (o.span < kInf && o.makespan <= makespanCap * kSlack && o.betterThan(best)) {
                best = o;
                moved = true;
                if (found.winner.find("+moves") == std::string::npos) found.winner += " +moves";
            } else
                std::swap(a, b);
        }
    }
    return moved;
}

/// Local improvement of the order itself, within its own budget of swaps.
void Search::moveWeights() {
    if (!haveBest || reachedBound() || found.cancelled) return;
    const long long swapBudget =
        std::min<long long>(20 * (long long)ops, (long long)(kDecisionBudget / ops)) - spent();
    long long swaps = 0;
    bool moved = true;
    while (moved && swaps < swapBudget && !reachedBound() && !cancelled())
        moved = moveWeightsOnce(swaps, swapBudget);
}

void Search::takeFinalists() {
    for (const auto& [o, finalist] : finalists)
        if (o.makespan <= makespanCap * kSlack && (!haveBest || o.betterThan(best))) {
            best = o;
            haveBest = true;
            found.schedule = finalist->second;
            found.winner = finalist->first;
        }
}

/// Only a makespan cap can refuse every greedy order: fall back to the best greedy one.
void Search::fallBack() {
    if (found.cancelled)
        throw Error("work.cancelled",
                    std::string(shape.name) + " was cancelled before it timed a first order");
    const Outcome o = evaluator.greedy(bestPolicy.cap.empty() ? candidates.front() : bestPolicy);
    best = o;
    found.schedule = evaluator.schedule(shape);
    found.winner = bestPolicy.label;
}

Found Search::run() {
    if (timeFinalists()) return found;
    timeSeeds();
    timeGrid();
    improvePolicy();
    moveWeights();
    takeFinalists();
    if (!haveBest) fallBack();
    control.report(1.0);
    found.outcome = best;
    return found;
}

} // namespace

Found search(const Pipe& P, const Schedule& shape, const SearchOptions& options, const WorkControl& control) {
    return Search(P, shape, options, control).run();
}

} // namespace stagecraft::zb
