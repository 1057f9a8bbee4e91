#include "exec/trace_assembly.h"

#include "io/measured_transfer.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace stagecraft::runtime {
namespace {

bool ran(const Stamp& s) {
    return s.start >= 0 && s.end >= s.start;
}

Op makeOp(const Schedule& schedule, OpKind kind, int pipe, int stage, int mb) {
    Op op;
    op.kind = kind;
    op.pipe = std::uint8_t(pipe);
    op.stage = stage;
    op.mb = mb;
    op.chunk = std::uint16_t(schedule.slot(pipe, stage).chunk);
    return op;
}

/// One iteration of one rank on rank 0's clock.
struct AlignedIteration {
    const RankIteration* data = nullptr;
    double offset = 0;
    Stamp at(std::size_t i) const {
        if (!data || i >= data->stamps.size() || !ran(data->stamps[i])) return {};
        return {data->stamps[i].start - offset, data->stamps[i].end - offset};
    }
};

/// Iteration `it` of rank `r` on rank 0's clock; no data when the rank did not record it.
AlignedIteration aligned(const MeasuredRun& run, int r, std::size_t it) {
    AlignedIteration a;
    if (std::size_t(r) < run.ranks.size() && it < run.ranks[std::size_t(r)].size())
        a.data = &run.ranks[std::size_t(r)][it];
    a.offset = clockOffsetAt(run, r, it);
    return a;
}

/// The ops an iteration is measured by: compute ops, gradient syncs and optimizer steps (the
/// prediction's makespan). A receive is posted as early as its buffer allows, which is not work of
/// this iteration yet.
bool isIterationOp(InstrKind kind) {
    return kind == InstrKind::Compute || kind == InstrKind::GradSync || kind == InstrKind::Optimizer;
}

/// Where the receive of each send is: the lowering's own matching of every transfer
/// (Lowered::matches), indexed by the send's rank and position; -1 ranks where none.
std::vector<std::vector<std::pair<int, int>>> receivesOfSends(const Lowered& lowered) {
    std::vector<std::vector<std::pair<int, int>>> out(std::size_t(lowered.ranks));
    for (int r = 0; r < lowered.ranks; ++r)
        out[std::size_t(r)].assign(lowered.programs[std::size_t(r)].instructions.size(), {-1, -1});
    for (const Match& m : lowered.matches)
        out[std::size_t(m.sendRank)][std::size_t(m.sendIndex)] = {m.recvRank, m.recvIndex};
    return out;
}

/// The steps of one assembly; the state they share is the trace being built.
class Assembly {
  public:
    Assembly(const RunPlan& plan, const MeasuredRun& run, double toleranceUs)
        : m_lowered(plan.lowered), m_schedule(plan.prediction.schedule), m_run(run), m_tolerance(toleranceUs),
          m_receiveOf(receivesOfSends(plan.lowered)), m_memory(std::size_t(plan.lowered.ranks)) {
        m_out.timeline.shape = shapeOf(m_schedule);
        m_out.timeline.origin = "measured";
    }

    AssembledTrace run() {
        const std::size_t iterations = countIterations();
        m_out.iterationUs.assign(iterations, 0.0);
        for (std::size_t it = 0; it < iterations; ++it) {
            m_computeStamp.clear();
            placeOps(it);
            m_out.iterationUs[it] = iterationSpanUs(m_lowered, m_run, it);
            for (int r = 0; r < ranks(); ++r) {
                const AlignedIteration a = aligned(r, it);
                if (!a.data) continue;
                placeTransfers(r, it, a);
                noteMemory(r, a);
            }
        }
        for (const TransferEvent& t : m_transfers) {
            m_out.timeline.events.push_back(t.event);
            m_out.iterations.push_back(t.iteration);
        }
        sumSlots();
        memoryTracks();
        return std::move(m_out);
    }

  private:
    struct TransferEvent {
        TimelineEvent event;
        std::uint32_t iteration;
    };

    int ranks() const { return m_lowered.ranks; }
    const std::vector<Instruction>& program(int r) const {
        return m_lowered.programs[std::size_t(r)].instructions;
    }

    AlignedIteration aligned(int r, std::size_t it) const {
        return stagecraft::runtime::aligned(m_run, r, it);
    }

    /// The most iterations any rank recorded; completeIterations: those every rank finished.
    std::size_t countIterations() {
        std::size_t iterations = 0;
        m_out.completeIterations = ranks() > 0 ? INT32_MAX : 0;
        for (int r = 0; r < ranks(); ++r) {
            const std::size_t count =
                std::size_t(r) < m_run.ranks.size() ? m_run.ranks[std::size_t(r)].size() : 0;
            iterations = std::max(iterations, count);
            int complete = 0;
            for (std::size_t it = 0; it < count; ++it) {
                const auto& stamps = m_run.ranks[std::size_t(r)][it].stamps;
                if (std::all_of(stamps.begin(), stamps.end(), [](const Stamp& s) { return s.start >= 0; }))
                    ++complete;
            }
            m_out.completeIterations = std::min(m_out.completeIterations, complete);
        }
        return iterations;
    }

    /// The compute ops, gradient syncs and optimizer steps of iteration `it` on every rank.
    void placeOps(std::size_t it) {
        for (int r = 0; r < ranks(); ++r) {
            const AlignedIteration a = aligned(r, it);
            if (!a.data) continue;
            for (std::size_t i = 0; i < program(r).size(); ++i) {
                const Stamp s = a.at(i);
                if (s.start < 0) continue;
                const std::optional<TimelineEvent> e = opEvent(program(r)[i], r, s);
                if (!e) continue;
                m_out.timeline.events.push_back(*e);
                m_out.iterations.push_back(std::uint32_t(it));
            }
        }
    }

    /// The event of an op instruction (none for transfers and bookkeeping); a compute op's stamp
    /// is kept for the dependency check of its transfers.
    std::optional<TimelineEvent> opEvent(const Instruction& in, int r, const Stamp& s) {
        TimelineEvent e;
        e.device = r;
        e.start = s.start;
        e.end = s.end;
        if (in.kind == InstrKind::Compute) {
            e.op = makeOp(m_schedule, in.op, in.pipe, in.stage, in.mb);
            m_computeStamp[opIdentity(e.op)] = s;
        } else if (in.kind == InstrKind::Optimizer) {
            e.op = makeOp(m_schedule, OpKind::Optimizer, in.pipe, in.stage, -1);
        } else if (in.kind == InstrKind::GradSync) {
            e.op = makeOp(m_schedule, OpKind::GradSync, in.pipe, in.stage, -1);
            e.lane = Lane::Comm;
            e.comm = CommKind::Collective;
        } else {
            return std::nullopt;
        }
        return e;
    }

    /// Every send of rank `r` in iteration `it` with its receive: the transfer (from both ends
    /// posted to the receive's end), who waited for whom, and the checks of causality and of the
    /// dependency the transfer carries.
    void placeTransfers(int r, std::size_t it, const AlignedIteration& a) {
        for (std::size_t i = 0; i < program(r).size(); ++i) {
            const Instruction& send = program(r)[i];
            if (send.kind != InstrKind::Send) continue;
            const auto [q, j] = m_receiveOf[std::size_t(r)][i];
            if (q < 0) continue;
            const Instruction& recv = program(q)[std::size_t(j)];
            const Stamp s = a.at(i), v = aligned(q, it).at(std::size_t(j));
            if (s.start < 0 || v.start < 0) continue;
            // What a transfer carries (ir/stage_flow.h): a forward's activation, a backward's gradient.
            const OpKind flow = send.dir == Direction::F ? OpKind::F : OpKind::B;
            TimelineEvent e;
            e.op = makeOp(m_schedule, flow, send.pipe, send.stage, send.mb);
            e.device = r;
            e.peer = q;
            e.lane = Lane::Comm;
            e.comm = send.dir == Direction::F ? CommKind::Activation : CommKind::Gradient;
            const MeasuredTransfer measured = measureTransfer({s.start, s.end, v.start, v.end});
            e.start = measured.start; // both ends posted: the transfer can run
            e.end = measured.end;
            m_transfers.push_back({e, std::uint32_t(it)});
            if (measured.clockContradiction > m_tolerance) {
                ++m_out.causalityViolations;
                m_out.worstViolationUs = std::max(m_out.worstViolationUs, measured.clockContradiction);
            }
            noteWait(send, recv, r, q, measured, it);
            checkDependency(Op{flow, send.pipe, 0, send.stage, send.mb},
                            Op{flow, recv.pipe, 0, recv.stage, recv.mb});
        }
    }

    /// Who waited for whom (core's rule, io/measured_transfer.h): the side that posted first, until
    /// the other posted or its own call returned.
    void noteWait(const Instruction& send, const Instruction& recv, int r, int q,
                  const MeasuredTransfer& measured, std::size_t it) {
        const bool receiverWaited = measured.receiverWaited;
        TraceSlice wait;
        wait.device = receiverWaited ? q : r;
        wait.lane = Lane::Comm;
        wait.category = "wait";
        wait.name = "wait " +
                    (receiverWaited ? transferName(InstrKind::Recv, recv.dir)
                                    : transferName(InstrKind::Send, send.dir)) +
                    " mb" + std::to_string(send.mb) + " for rank " + std::to_string(receiverWaited ? r : q);
        wait.start = measured.waitStart;
        wait.end = measured.waitEnd;
        wait.iteration = std::uint32_t(it);
        if (wait.end > wait.start) m_out.waits.push_back(std::move(wait));
    }

    /// The consumer on the receiver must not start before the producer on the sender ended.
    void checkDependency(const Op& producer, const Op& consumer) {
        const auto produced = m_computeStamp.find(opIdentity(producer));
        const auto consumed = m_computeStamp.find(opIdentity(consumer));
        if (produced == m_computeStamp.end() || consumed == m_computeStamp.end() ||
            consumed->second.start + m_tolerance >= produced->second.end)
            return;
        ++m_out.dependencyViolations;
        m_out.worstDependencyUs =
            std::max(m_out.worstDependencyUs, produced->second.end - consumed->second.start);
    }

    /// Memory: taken at the start of an instruction, given back at its end (at the iteration's
    /// start for an instruction that never ran).
    void noteMemory(int r, const AlignedIteration& a) {
        for (const MemoryChange& c : a.data->memory) {
            const Stamp s = a.at(std::size_t(c.instr));
            const double fallback = a.data->iterationStart - a.offset;
            const double t =
                c.bytes > 0 ? (s.start >= 0 ? s.start : fallback) : (s.end >= 0 ? s.end : fallback);
            m_memory[std::size_t(r)].push_back({t, c.bytes});
        }
    }

    /// The slots' measured memory (most over the iterations) and allocations inside iterations.
    void sumSlots() {
        m_out.residentSlotBytes.assign(std::size_t(ranks()), 0);
        m_out.allocationsInIterations.assign(std::size_t(ranks()), 0);
        for (std::size_t r = 0; r < m_run.ranks.size() && r < std::size_t(ranks()); ++r)
            for (const RankIteration& it : m_run.ranks[r]) {
                m_out.residentSlotBytes[r] = std::max(m_out.residentSlotBytes[r], it.residentSlotBytes);
                m_out.allocationsInIterations[r] += it.allocations;
            }
    }

    /// Per rank, the memory held over time (MiB) from its static memory and the changes, and its peak.
    void memoryTracks() {
        m_out.peakBytes.assign(std::size_t(ranks()), 0.0);
        for (int r = 0; r < ranks(); ++r) {
            auto& changes = m_memory[std::size_t(r)];
            // Give back before taking at the same instant: a buffer freed and another taken at once
            // are never both held.
            std::stable_sort(changes.begin(), changes.end(), [](const auto& x, const auto& y) {
                return x.first < y.first || (x.first == y.first && x.second < y.second);
            });
            const double base =
                std::size_t(r) < m_run.staticBytes.size() ? double(m_run.staticBytes[std::size_t(r)]) : 0.0;
            CounterTrack track;
            track.device = r;
            track.name = "memory MiB";
            double held = base, peak = base;
            if (!changes.empty()) track.points.push_back({changes.front().first, base / 1048576.0});
            for (const auto& [t, bytes] : changes) {
                held += double(bytes);
                peak = std::max(peak, held);
                track.points.push_back({t, held / 1048576.0});
            }
            m_out.peakBytes[std::size_t(r)] = peak;
            m_out.memory.push_back(std::move(track));
        }
    }

    const Lowered& m_lowered;
    const Schedule& m_schedule;
    const MeasuredRun& m_run;
    double m_tolerance;
    std::vector<std::vector<std::pair<int, int>>>
        m_receiveOf; ///< [rank][send] -> (rank, index) of its receive
    std::vector<std::vector<std::pair<double, std::int64_t>>> m_memory; ///< [rank]: (time, bytes) changes
    std::unordered_map<std::uint64_t, Stamp> m_computeStamp; ///< op identity -> its stamp, this iteration
    std::vector<TransferEvent> m_transfers;                  ///< listed after every op, as iterations go
    AssembledTrace m_out;
};

} // namespace

double clockOffsetAt(const MeasuredRun& run, int rank, std::size_t iteration) {
    const auto r = std::size_t(rank);
    const double start = r < run.clockOffsetUs.size() ? run.clockOffsetUs[r] : 0.0;
    if (r >= run.clockOffsetEndUs.size() || run.clockEndAtUs <= 0 || run.ranks.empty() ||
        iteration >= run.ranks[0].size())
        return start;
    const double at = std::clamp(run.ranks[0][iteration].iterationStart / run.clockEndAtUs, 0.0, 1.0);
    return start + (run.clockOffsetEndUs[r] - start) * at;
}

double iterationSpanUs(const Lowered& lowered, const MeasuredRun& run, std::size_t iteration) {
    double first = 1e300, last = -1e300;
    for (int r = 0; r < lowered.ranks; ++r) {
        const AlignedIteration a = aligned(run, r, iteration);
        if (!a.data) continue;
        const std::vector<Instruction>& program = lowered.programs[std::size_t(r)].instructions;
        for (std::size_t i = 0; i < program.size(); ++i) {
            const Stamp s = a.at(i);
            if (s.start < 0 || !isIterationOp(program[i].kind)) continue;
            first = std::min(first, s.start);
            last = std::max(last, s.end);
        }
    }
    return last >= first ? last - first : 0.0;
}

AssembledTrace assembleTrace(const RunPlan& plan, const MeasuredRun& run, double toleranceUs) {
    return Assembly(plan, run, toleranceUs).run();
}

} // namespace stagecraft::runtime
