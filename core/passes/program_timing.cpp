#include "passes/program_timing.h"

#include "error.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <random>
#include <unordered_map>

namespace stagecraft {

namespace {

/// One transfer, by tag: when each end was posted, and who waits for its arrival.
struct TransferState {
    double sendPosted = NAN, recvPosted = NAN;
    std::uint64_t bytes = 0;
    double time = 0; ///< from both ends posted to the arrival, µs
    int sendRank = -1, recvRank = -1;
    std::array<int, 2> waiters = {-1, -1}; ///< ranks blocked until it arrives

    bool arrived() const { return !std::isnan(sendPosted) && !std::isnan(recvPosted); }
};

/// Key of the buffer a compute op reads from a receive: (direction, pipe, stage, mb).
std::uint64_t inputKey(Direction dir, int pipe, int stage, int mb) {
    return std::uint64_t(dir) | std::uint64_t(pipe) << 1 | std::uint64_t(std::uint32_t(stage)) << 9 |
           std::uint64_t(std::uint32_t(mb)) << 36;
}

class Timer {
  public:
    Timer(const Lowered& l, const RuntimeCosts& c, std::uint64_t seed)
        : m_l(l), m_costs(c), m_rng(seed), m_draw(seed != 0) {
        const auto ranks = std::size_t(l.ranks);
        m_pc.assign(ranks, 0);
        m_clock.assign(ranks, 0.0);
        m_inputs.resize(ranks);
        m_out.ranks.resize(ranks);
        for (std::size_t r = 0; r < ranks; ++r) m_out.ranks[r].resize(l.programs[r].instructions.size());
        std::int64_t maxTag = -1;
        for (const Program& p : l.programs)
            for (const Instruction& in : p.instructions)
                if (in.kind == InstrKind::Send || in.kind == InstrKind::Recv)
                    maxTag = std::max(maxTag, in.tag);
        m_transfers.resize(std::size_t(maxTag + 1));
    }

    ProgramTiming run() {
        if (m_costs.cores > 0 && m_costs.cores < double(m_l.ranks)) return runShared();
        std::vector<int> ready(std::size_t(m_l.ranks));
        for (int r = 0; r < m_l.ranks; ++r) ready[std::size_t(r)] = r;
        while (!ready.empty()) {
            const int r = ready.back();
            ready.pop_back();
            advance(r, ready);
        }
        for (int r = 0; r < m_l.ranks; ++r)
            if (m_pc[std::size_t(r)] < m_l.programs[std::size_t(r)].instructions.size()) stuck(r);
        finish();
        return std::move(m_out);
    }

    /// The ranks share `m_costs.cores` processors: time moves from event to event (an instruction
    /// or a gap done, a transfer arriving), and between events every busy rank works at
    /// min(1, cores / busy ranks). Each rank runs the same instructions, waits and posts as in
    /// run(); only how fast its work progresses depends on the others.
    ProgramTiming runShared() {
        const auto ranks = std::size_t(m_l.ranks);
        enum class Phase : std::uint8_t { Gap, Waiting, Busy, Done };
        std::vector<Phase> phase(ranks, Phase::Gap);
        std::vector<char> over(ranks, 0); // the gap or the instruction's work is done
        std::vector<std::int64_t> awaitedTag(ranks, -1);
        std::vector<char> timed(ranks, 0); // in `arrivals`
        // Every busy rank works at the same rate, so one clock of work done per busy rank
        // (`worked`) orders their ends: a rank ends its work when `worked` reaches its mark.
        using Mark = std::pair<double, int>;
        std::priority_queue<Mark, std::vector<Mark>, std::greater<>> ends, arrivals;
        double now = 0, worked = 0;
        auto begin = [&](std::size_t r, double work) {
            over[r] = work <= 0;
            if (!over[r]) ends.emplace(worked + work, int(r));
        };
        auto startGap = [&](std::size_t r) {
            const auto& ins = m_l.programs[r].instructions;
            if (m_pc[r] >= ins.size()) {
                phase[r] = Phase::Done;
                return;
            }
            phase[r] = Phase::Gap;
            begin(r, ins[m_pc[r]].kind == InstrKind::Optimizer
                         ? 0.0
                         : drawn(m_costs.actions.gap, m_costs.spread.gap));
        };
        // Moves the ranks in `work` (and any rank a post of theirs frees) on while their gap, wait
        // or work is over at `now`.
        std::vector<int> work, freed;
        auto settle = [&] {
            while (!work.empty()) {
                const auto r = std::size_t(work.back());
                work.pop_back();
                const auto& ins = m_l.programs[r].instructions;
                for (bool moved = true; moved;) {
                    moved = false;
                    if (phase[r] == Phase::Gap && over[r]) {
                        m_out.ranks[r][m_pc[r]].start = now;
                        awaitedTag[r] = awaited(int(r), ins[m_pc[r]]);
                        m_out.ranks[r][m_pc[r]].awaited = awaitedTag[r];
                        phase[r] = Phase::Waiting;
                        if (awaitedTag[r] >= 0) {
                            TransferState& t = m_transfers[std::size_t(awaitedTag[r])];
                            if (!t.arrived()) (t.waiters[0] < 0 ? t.waiters[0] : t.waiters[1]) = int(r);
                        }
                    }
                    if (phase[r] == Phase::Waiting) {
                        if (awaitedTag[r] >= 0) {
                            const TransferState& t = m_transfers[std::size_t(awaitedTag[r])];
                            if (!t.arrived()) break;
                            if (arrival(t) > now) {
                                if (!timed[r]) arrivals.emplace(arrival(t), int(r));
                                timed[r] = 1;
                                break;
                            }
                        }
                        timed[r] = 0;
                        m_out.ranks[r][m_pc[r]].begin = now;
                        phase[r] = Phase::Busy;
                        begin(r, busy(ins[m_pc[r]], int(r)));
                    }
                    if (phase[r] == Phase::Busy && over[r]) {
                        const Instruction& in = ins[m_pc[r]];
                        m_out.ranks[r][m_pc[r]].end = now;
                        if (in.kind == InstrKind::Send || in.kind == InstrKind::Recv) {
                            post(int(r), in, now, freed);
                            work.insert(work.end(), freed.begin(), freed.end());
                            freed.clear();
                        }
                        if (in.kind == InstrKind::Recv)
                            m_inputs[r][inputKey(in.dir, in.pipe, in.stage, in.mb)] = in.tag;
                        ++m_pc[r];
                        startGap(r);
                        moved = true;
                    }
                }
            }
        };
        for (std::size_t r = 0; r < ranks; ++r) {
            startGap(r);
            work.push_back(int(r));
        }
        for (;;) {
            settle();
            if (ends.empty() && arrivals.empty()) break;
            const double rate = ends.empty() ? 1.0 : std::min(1.0, m_costs.cores / double(ends.size()));
            const double workEnd = ends.empty() ? INFINITY : now + (ends.top().first - worked) / rate;
            const bool arrivalFirst = !arrivals.empty() && arrivals.top().first < workEnd;
            const double next = arrivalFirst ? arrivals.top().first : workEnd;
            worked = arrivalFirst ? worked + (next - now) * rate : ends.top().first;
            now = next;
            // Ends within rounding of the clock are ends now.
            while (!ends.empty() && ends.top().first <= worked + 1e-9 * std::max(1.0, worked)) {
                over[std::size_t(ends.top().second)] = 1;
                work.push_back(ends.top().second);
                ends.pop();
            }
            while (!arrivals.empty() && arrivals.top().first <= now) {
                work.push_back(arrivals.top().second);
                arrivals.pop();
            }
        }
        for (int r = 0; r < m_l.ranks; ++r)
            if (m_pc[std::size_t(r)] < m_l.programs[std::size_t(r)].instructions.size()) stuck(r);
        finish();
        return std::move(m_out);
    }

  private:
    const Lowered& m_l;
    const RuntimeCosts& m_costs;
    std::vector<std::size_t> m_pc;
    std::vector<double> m_clock;
    std::vector<std::unordered_map<std::uint64_t, std::int64_t>> m_inputs; ///< receive tag of each input
    std::vector<TransferState> m_transfers;
    ProgramTiming m_out;
    std::mt19937_64 m_rng;
    bool m_draw;

    /// `cost` times one multiplier drawn from `spread` (the cost itself without a seed).
    double drawn(double cost, const std::vector<double>& spread) {
        if (!m_draw || spread.empty() || cost <= 0) return cost;
        return cost * spread[std::size_t(m_rng() % spread.size())];
    }

    double arrival(const TransferState& t) const { return std::max(t.sendPosted, t.recvPosted) + t.time; }

    /// The transfer the instruction at the rank's pc must see arrive before it can begin, or -1.
    std::int64_t awaited(int r, const Instruction& in) const {
        if (in.kind == InstrKind::Compute && (in.op == OpKind::F || in.op == OpKind::B)) {
            const Direction dir = in.op == OpKind::F ? Direction::F : Direction::B;
            const auto& inputs = m_inputs[std::size_t(r)];
            const auto it = inputs.find(inputKey(dir, in.pipe, in.stage, in.mb));
            return it == inputs.end() ? -1 : it->second;
        }
        if (in.kind == InstrKind::Wait && (in.waits == InstrKind::Send || in.waits == InstrKind::Recv))
            return m_l.programs[std::size_t(r)].instructions[std::size_t(in.ref)].tag;
        return -1;
    }

    double busy(const Instruction& in, int rank) {
        const double cost = nominal(in, rank);
        if (in.kind == InstrKind::Compute) return drawn(cost, m_costs.spread.compute);
        if (in.kind == InstrKind::Send || in.kind == InstrKind::Recv) return drawn(cost, m_costs.spread.post);
        return cost; // waits and bookkeeping: small and steady
    }

    double nominal(const Instruction& in, int rank) const {
        const ActionCosts& a = m_costs.actions;
        switch (in.kind) {
        case InstrKind::Compute: {
            const double cost = computeCost(m_costs, in, m_l.splitBackward, rank);
            if (cost < 0)
                throw ValidationError("timing.cost", "costs",
                                      "no measured cost of " + std::string(opKindName(in.op)) + " on stage " +
                                          std::to_string(in.stage) +
                                          (m_l.splitBackward && in.op != OpKind::F
                                               ? " to time this split-backward program with: the costs come "
                                                 "from a run that did not "
                                                 "split its backward (fit on a zero-bubble run, or give the "
                                                 "input-gradient share of B)"
                                               : " to time this program with"));
            return cost;
        }
        case InstrKind::Send:
            return a.postSend;
        case InstrKind::Recv:
            return a.postRecv;
        case InstrKind::Wait:
            return in.waits == InstrKind::Send ? a.waitSend : 0.0;
        case InstrKind::GradSync:
            return a.reduceGrad;
        case InstrKind::Unshard:
            return a.unshard;
        case InstrKind::Reshard:
            return a.reshard;
        case InstrKind::Optimizer:
            return 0.0; // torch steps the optimizer outside the schedule's step
        }
        return 0.0;
    }

    /// Runs rank r until it blocks on a transfer not yet posted at both ends, or finishes.
    void advance(int r, std::vector<int>& ready) {
        const auto& ins = m_l.programs[std::size_t(r)].instructions;
        std::size_t& pc = m_pc[std::size_t(r)];
        double& clock = m_clock[std::size_t(r)];
        while (pc < ins.size()) {
            const Instruction& in = ins[pc];
            // The optimizer steps that end a program read from torch's file are not torch actions.
            const double start =
                clock +
                (in.kind == InstrKind::Optimizer ? 0.0 : drawn(m_costs.actions.gap, m_costs.spread.gap));
            double begin = start;
            const std::int64_t tag = awaited(r, in);
            if (tag >= 0) {
                TransferState& t = m_transfers[std::size_t(tag)];
                if (!t.arrived()) {
                    (t.waiters[0] < 0 ? t.waiters[0] : t.waiters[1]) = r;
                    return;
                }
                begin = std::max(start, arrival(t));
            }
            const double end = begin + busy(in, r);
            m_out.ranks[std::size_t(r)][pc] = TimedInstruction{start, begin, end, tag};
            clock = end;
            if (in.kind == InstrKind::Send || in.kind == InstrKind::Recv) post(r, in, end, ready);
            if (in.kind == InstrKind::Recv)
                m_inputs[std::size_t(r)][inputKey(in.dir, in.pipe, in.stage, in.mb)] = in.tag;
            ++pc;
        }
    }

    void post(int r, const Instruction& in, double when, std::vector<int>& ready) {
        TransferState& t = m_transfers[std::size_t(in.tag)];
        (in.kind == InstrKind::Send ? t.sendPosted : t.recvPosted) = when;
        (in.kind == InstrKind::Send ? t.sendRank : t.recvRank) = r;
        t.bytes = in.bytes;
        if (!t.arrived()) return;
        t.time = drawn(m_costs.transfer.time(t.bytes), m_costs.spread.transfer);
        for (int& w : t.waiters)
            if (w >= 0) {
                ready.push_back(w);
                w = -1;
            }
    }

    [[noreturn]] void stuck(int r) const {
        throwStuck(m_l, r, m_pc[std::size_t(r)], "the other end of its transfer is never posted");
    }

    void finish() {
        Timeline& tl = m_out.timeline;
        tl.shape.schedule = m_l.name;
        tl.shape.devices = m_l.ranks;
        tl.shape.pipes = m_l.pipes;
        tl.shape.stagesPerPipe = m_l.stagesPerPipe;
        tl.shape.microbatches = m_l.microbatches;
        tl.shape.chunksPerDevice = m_l.ranks > 0 ? std::max(1, m_l.pipes * m_l.stagesPerPipe / m_l.ranks) : 1;
        tl.shape.splitBackward = m_l.splitBackward;
        for (int r = 0; r < m_l.ranks; ++r) {
            const auto& ins = m_l.programs[std::size_t(r)].instructions;
            for (std::size_t i = 0; i < ins.size(); ++i) {
                const TimedInstruction& t = m_out.ranks[std::size_t(r)][i];
                m_out.makespan = std::max(m_out.makespan, t.end);
                if (ins[i].kind != InstrKind::Compute) continue;
                TimelineEvent e;
                e.op = opOf(ins[i]);
                e.device = r;
                e.start = t.begin;
                e.end = t.end;
                tl.events.push_back(e);
            }
        }
        for (int r = 0; r < m_l.ranks; ++r)
            for (const Instruction& in : m_l.programs[std::size_t(r)].instructions) {
                if (in.kind != InstrKind::Send) continue;
                const TransferState& t = m_transfers[std::size_t(in.tag)];
                tl.events.push_back(
                    transferEvent(m_l, r, in, std::max(t.sendPosted, t.recvPosted), arrival(t)));
            }
    }

    Op opOf(const Instruction& in) const { return m_l.opOf(in); }
};

} // namespace

const char* runtimeModelName(RuntimeModel model) {
    switch (model) {
    case RuntimeModel::TorchGloo:
        return "torch-gloo";
    }
    return "?";
}

double computeCost(const RuntimeCosts& costs, const Instruction& in, bool split, int rank) {
    if (in.stage < 0 || std::size_t(in.stage) >= costs.stages.size()) return -1;
    const StageCompute& s = costs.stages[std::size_t(in.stage)];
    // The halves of a whole backward share its cost, in the proportion of a split I and W: torch
    // runs them in one autograd pass, which takes less than the two apart (docs/fidelity.md).
    if (split && in.wholeBackward && s.b > 0 && s.i >= 0 && s.w > 0 &&
        (in.op == OpKind::B || in.op == OpKind::W))
        return s.b * (in.op == OpKind::B ? s.i : s.w) / (s.i + s.w);
    switch (in.op) {
    case OpKind::F:
        return s.f;
    case OpKind::B:
        return split ? s.i : s.b;
    case OpKind::W:
        return weightCostOn(costs, in.stage, rank);
    case OpKind::R: // a recompute re-runs the forward
        return s.f;
    default:
        return 0.0;
    }
}

TimelineEvent transferEvent(const Lowered& lowered, int rank, const Instruction& send, double start,
                            double end) {
    TimelineEvent e;
    e.op = lowered.opOf(send);
    e.op.kind = send.dir == Direction::F ? OpKind::F : OpKind::B;
    e.device = rank;
    e.peer = send.peer;
    e.lane = Lane::Comm;
    e.comm = send.dir == Direction::F ? CommKind::Activation : CommKind::Gradient;
    e.start = start;
    e.end = end;
    return e;
}

void throwStuck(const Lowered& lowered, int rank, std::size_t pc, const std::string& what) {
    const Instruction& in = lowered.programs.at(std::size_t(rank)).instructions.at(pc);
    throw ValidationError("timing.deadlock", "rank " + std::to_string(rank),
                          "rank " + std::to_string(rank) + " waits forever at instruction " +
                              std::to_string(pc) + " (" + describeInstruction(lowered, in) + "): " + what);
}

ProgramTiming timePrograms(const Lowered& lowered, const RuntimeCosts& costs, const TimingOptions& options) {
    // One fitted model so far (options.model); the switch point for the next (NCCL streams).
    // stagecraft-run's own programs are timed by passes/run_timing.h from the cost model's
    // durations, not from fitted action costs.
    return Timer(lowered, costs, options.seed).run();
}

} // namespace stagecraft
