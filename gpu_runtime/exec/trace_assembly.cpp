#include "exec/trace_assembly.h"

#include <algorithm>
#include <unordered_map>

namespace stagecraft::runtime {
namespace {

bool ran(const Stamp& s) {
    return s.start >= 0 && s.end >= s.start;
}

std::uint64_t computeKey(OpKind kind, int pipe, int stage, int mb) {
    return (std::uint64_t(kind) << 56) | (std::uint64_t(pipe) << 48) |
           (std::uint64_t(std::uint32_t(stage)) << 24) | std::uint64_t(std::uint32_t(mb + 1));
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

AssembledTrace assembleTrace(const RunPlan& plan, const MeasuredRun& run, double toleranceUs) {
    const Lowered& lowered = plan.lowered;
    const Schedule& schedule = plan.prediction.schedule;
    const int ranks = lowered.ranks;
    AssembledTrace out;
    out.timeline.shape = shapeOf(schedule);
    out.timeline.origin = "measured";

    std::size_t iterations = 0;
    out.completeIterations = ranks > 0 ? INT32_MAX : 0;
    for (int r = 0; r < ranks; ++r) {
        const std::size_t count = std::size_t(r) < run.ranks.size() ? run.ranks[std::size_t(r)].size() : 0;
        iterations = std::max(iterations, count);
        int complete = 0;
        for (std::size_t it = 0; it < count; ++it) {
            const auto& stamps = run.ranks[std::size_t(r)][it].stamps;
            if (std::all_of(stamps.begin(), stamps.end(), [](const Stamp& s) { return s.start >= 0; }))
                ++complete;
        }
        out.completeIterations = std::min(out.completeIterations, complete);
    }
    auto aligned = [&](int r, std::size_t it) {
        AlignedIteration a;
        if (std::size_t(r) < run.ranks.size() && it < run.ranks[std::size_t(r)].size())
            a.data = &run.ranks[std::size_t(r)][it];
        a.offset = clockOffsetAt(run, r, it);
        return a;
    };

    // Where each transfer's receive is: tags are unique per transfer within an iteration.
    std::unordered_map<std::int64_t, std::pair<int, std::size_t>> receiveOfTag;
    for (int r = 0; r < ranks; ++r) {
        const auto& program = lowered.programs[std::size_t(r)].instructions;
        for (std::size_t i = 0; i < program.size(); ++i)
            if (program[i].kind == InstrKind::Recv) receiveOfTag[program[i].tag] = {r, i};
    }

    struct TransferEvent {
        TimelineEvent event;
        std::uint32_t iteration;
    };
    std::vector<TransferEvent> transfers;
    auto memory = std::vector<std::vector<std::pair<double, std::int64_t>>>(std::size_t(ranks));
    out.iterationUs.assign(iterations, 0.0);

    for (std::size_t it = 0; it < iterations; ++it) {
        double first = 1e300, last = -1e300;
        std::unordered_map<std::uint64_t, Stamp> computeStamp; // (kind, pipe, stage, mb) -> on its rank
        for (int r = 0; r < ranks; ++r) {
            const AlignedIteration a = aligned(r, it);
            if (!a.data) continue;
            const auto& program = lowered.programs[std::size_t(r)].instructions;
            for (std::size_t i = 0; i < program.size(); ++i) {
                const Instruction& in = program[i];
                const Stamp s = a.at(i);
                if (s.start < 0) continue;
                TimelineEvent e;
                e.device = r;
                e.start = s.start;
                e.end = s.end;
                if (in.kind == InstrKind::Compute) {
                    e.op = makeOp(schedule, in.op, in.pipe, in.stage, in.mb);
                    computeStamp[computeKey(in.op, in.pipe, in.stage, in.mb)] = s;
                } else if (in.kind == InstrKind::Optimizer) {
                    e.op = makeOp(schedule, OpKind::Optimizer, in.pipe, in.stage, -1);
                } else if (in.kind == InstrKind::GradSync) {
                    e.op = makeOp(schedule, OpKind::GradSync, in.pipe, in.stage, -1);
                    e.lane = Lane::Comm;
                    e.comm = CommKind::Collective;
                } else {
                    continue;
                }
                // The iteration is the prediction's makespan: first op to last op. A receive is
                // posted as early as its buffer allows, which is not work of this iteration yet.
                first = std::min(first, s.start);
                last = std::max(last, s.end);
                out.timeline.events.push_back(e);
                out.iterations.push_back(std::uint32_t(it));
            }
        }
        if (last >= first) out.iterationUs[it] = last - first;

        for (int r = 0; r < ranks; ++r) {
            const AlignedIteration a = aligned(r, it);
            if (!a.data) continue;
            const auto& program = lowered.programs[std::size_t(r)].instructions;
            for (std::size_t i = 0; i < program.size(); ++i) {
                const Instruction& send = program[i];
                if (send.kind != InstrKind::Send) continue;
                const auto match = receiveOfTag.find(send.tag);
                if (match == receiveOfTag.end()) continue;
                const auto [q, j] = match->second;
                const Instruction& recv = lowered.programs[std::size_t(q)].instructions[j];
                const Stamp s = a.at(i), v = aligned(q, it).at(j);
                if (s.start < 0 || v.start < 0) continue;
                const OpKind producer = send.dir == Direction::F ? OpKind::F : OpKind::B;
                TimelineEvent e;
                e.op = makeOp(schedule, producer, send.pipe, send.stage, send.mb);
                e.device = r;
                e.peer = q;
                e.lane = Lane::Comm;
                e.comm = send.dir == Direction::F ? CommKind::Activation : CommKind::Gradient;
                e.start = std::max(s.start, v.start); // both ends posted: the transfer can run
                e.end = std::max(e.start, v.end);
                transfers.push_back({e, std::uint32_t(it)});
                if (v.end + toleranceUs < s.start) {
                    ++out.causalityViolations;
                    out.worstViolationUs = std::max(out.worstViolationUs, s.start - v.end);
                }
                // Who waited for whom: the side that posted first, until the other posted.
                const bool receiverWaited = v.start < s.start;
                TraceSlice wait;
                wait.device = receiverWaited ? q : r;
                wait.lane = Lane::Comm;
                wait.category = "wait";
                wait.name = "wait " +
                            (receiverWaited ? transferName(InstrKind::Recv, recv.dir)
                                            : transferName(InstrKind::Send, send.dir)) +
                            " mb" + std::to_string(send.mb) + " for rank " +
                            std::to_string(receiverWaited ? r : q);
                wait.start = std::min(s.start, v.start);
                wait.end = e.start;
                wait.iteration = std::uint32_t(it);
                if (wait.end > wait.start) out.waits.push_back(std::move(wait));

                // The consumer on the receiver must not start before the producer ended.
                const OpKind consumerKind = send.dir == Direction::F ? OpKind::F : OpKind::B;
                const auto produced = computeStamp.find(computeKey(producer, send.pipe, send.stage, send.mb));
                const auto consumed =
                    computeStamp.find(computeKey(consumerKind, recv.pipe, recv.stage, recv.mb));
                if (produced != computeStamp.end() && consumed != computeStamp.end() &&
                    consumed->second.start + toleranceUs < produced->second.end) {
                    ++out.dependencyViolations;
                    out.worstDependencyUs =
                        std::max(out.worstDependencyUs, produced->second.end - consumed->second.start);
                }
            }
            // Memory: taken at the start of an instruction, given back at its end.
            for (const MemoryChange& c : a.data->memory) {
                const Stamp s = a.at(std::size_t(c.instr));
                const double fallback = a.data->iterationStart - a.offset;
                const double t =
                    c.bytes > 0 ? (s.start >= 0 ? s.start : fallback) : (s.end >= 0 ? s.end : fallback);
                memory[std::size_t(r)].push_back({t, c.bytes});
            }
        }
    }
    for (const TransferEvent& t : transfers) {
        out.timeline.events.push_back(t.event);
        out.iterations.push_back(t.iteration);
    }

    out.residentSlotBytes.assign(std::size_t(ranks), 0);
    out.allocationsInIterations.assign(std::size_t(ranks), 0);
    for (std::size_t r = 0; r < run.ranks.size() && r < std::size_t(ranks); ++r)
        for (const RankIteration& it : run.ranks[r]) {
            out.residentSlotBytes[r] = std::max(out.residentSlotBytes[r], it.residentSlotBytes);
            out.allocationsInIterations[r] += it.allocations;
        }
    out.peakBytes.assign(std::size_t(ranks), 0.0);
    for (int r = 0; r < ranks; ++r) {
        auto& changes = memory[std::size_t(r)];
        // Give back before taking at the same instant: a buffer freed and another taken at once
        // are never both held.
        std::stable_sort(changes.begin(), changes.end(), [](const auto& x, const auto& y) {
            return x.first < y.first || (x.first == y.first && x.second < y.second);
        });
        const double base =
            std::size_t(r) < run.staticBytes.size() ? double(run.staticBytes[std::size_t(r)]) : 0.0;
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
        out.peakBytes[std::size_t(r)] = peak;
        out.memory.push_back(std::move(track));
    }
    return out;
}

} // namespace stagecraft::runtime
