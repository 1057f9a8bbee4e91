#include "passes/run_timing.h"

#include "error.h"
#include "passes/buffer_slots.h"
#include "passes/post_queues.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace stagecraft {

namespace {

/// One transfer, by tag: when each end was posted, and the ranks blocked until it arrives.
struct Transfer {
    double sendPosted = NAN, recvPosted = NAN;
    double time = 0; ///< from both ends posted to the arrival
    int sendRank = -1, recvRank = -1;
    int sendPeer = -1, recvPeer = -1; ///< the rank each posted end names as its peer
    /// The ranks blocked on it: only its two ends name its tag, so at most two (kept inline: a
    /// million transfers would otherwise cost a million small allocations).
    std::array<int, 2> waiters{-1, -1};

    bool known() const { return !std::isnan(sendPosted) && !std::isnan(recvPosted); }
    double arrival() const { return std::max(sendPosted, recvPosted) + time; }
};

/// One gradient-sync collective: how many members posted it, the latest post, and its times once
/// every member has.
struct Sync {
    int posted = 0;
    double ready = 0, start = NAN, end = NAN;
    std::vector<std::pair<int, std::size_t>> members; ///< (rank, instruction)
    std::vector<int> waiters;
};

/// Per rank: what each instruction waits for, its work, and the posting order of its transfers.
struct RankState {
    std::size_t pc = 0;
    double clock = 0;
    std::vector<double> work;              ///< [instruction]
    std::vector<std::int64_t> awaitedTag;  ///< [instruction]: the transfer it waits for, -1
    std::vector<std::int32_t> awaitedSync; ///< [instruction]: the collective it waits for, -1
    std::vector<SlotUse> slots;            ///< [instruction]
    PostQueues sends, receives;            ///< the executor's posting order
};

/// The key of an op, gradient sync or optimizer step of one device by what it does.
std::uint64_t workKey(OpKind kind, int pipe, int stage, int mb) {
    return opIdentity(Op{kind, std::uint8_t(pipe), 0, stage, mb});
}

OpKind workKind(const Instruction& in) {
    return in.kind == InstrKind::GradSync    ? OpKind::GradSync
           : in.kind == InstrKind::Optimizer ? OpKind::Optimizer
                                             : in.op;
}

class RunTimer {
  public:
    RunTimer(const Schedule& schedule, const Lowered& lowered, const Timeline& listScheduled,
             const OpCosts& links)
        : m_s(schedule), m_l(lowered), m_listed(listScheduled), m_links(links) {
        std::int64_t maxTag = -1;
        for (const Program& p : m_l.programs)
            for (const Instruction& in : p.instructions)
                if (isTransfer(in)) maxTag = std::max(maxTag, in.tag);
        m_transfers.resize(std::size_t(maxTag + 1));
        m_tagOf.assign(std::size_t(std::max(0, m_s.pipes)) * std::size_t(std::max(0, m_s.stagesPerPipe)) *
                           std::size_t(std::max(0, m_s.microbatches)) * kBuffers,
                       -1);
        m_syncs.resize(m_l.collectives.size());
        m_ranks.resize(std::size_t(m_l.ranks));
        m_event.resize(std::size_t(m_l.ranks));
        m_lane.assign(std::size_t(m_l.ranks), 0.0);
        m_out.ranks.resize(std::size_t(m_l.ranks));
        for (int r = 0; r < m_l.ranks; ++r) prepare(r);
    }

    /// [rank][instruction]: the index of the instruction's event in the list-scheduled timeline
    /// (-1: a transfer or a wait, which has none).
    const std::vector<std::vector<std::int64_t>>& events() const { return m_event; }

    ProgramTiming run() {
        std::vector<int> ready;
        for (int r = m_l.ranks - 1; r >= 0; --r) ready.push_back(r);
        while (!ready.empty()) {
            const int r = ready.back();
            ready.pop_back();
            advance(r, ready);
        }
        stuckRanks();
        for (const Sync& c : m_syncs)
            if (!c.members.empty() && std::isnan(c.end))
                throwStuck(m_l, c.members.front().first, c.members.front().second,
                           "not every member of its collective posts it");
        finish();
        return std::move(m_out);
    }

  private:
    const Schedule& m_s;
    const Lowered& m_l;
    const Timeline& m_listed;
    const OpCosts& m_links;
    std::vector<std::vector<std::int64_t>> m_event;
    std::vector<Transfer> m_transfers;
    std::vector<Sync> m_syncs;
    std::vector<RankState> m_ranks;
    std::vector<double> m_lane;        ///< [rank]: when its collective lane is free
    std::vector<std::int64_t> m_tagOf; ///< [bufferIndex]: the tag that fills a buffer; -1: none
    ProgramTiming m_out;

    const std::vector<Instruction>& program(int r) const { return m_l.programs[std::size_t(r)].instructions; }

    /// What a rank's compute waits for, by buffer: the tag of the receive of its input (F) or of
    /// its output gradient (B), and of the send of a forward's output (a recompute waits for it).
    enum Buffer : std::size_t { kReceivedF, kReceivedB, kSentF, kBuffers };

    /// The tag table's index of a buffer of (pipe, stage, micro-batch): a flat table, shared by
    /// the ranks in turn (a hash map per rank costs more than the rest of the preparation).
    std::size_t bufferIndex(Buffer which, const Instruction& in) const {
        const std::size_t stages = std::size_t(std::max(0, m_s.stagesPerPipe));
        const std::size_t units = std::size_t(std::max(0, m_s.microbatches));
        if (in.pipe >= m_s.pipes || in.stage < 0 || std::size_t(in.stage) >= stages || in.mb < 0 ||
            std::size_t(in.mb) >= units)
            throw std::logic_error("timeLikeStagecraftRun: " + describeInstruction(m_l, in) +
                                   " names no stage and micro-batch of the schedule");
        return ((std::size_t(in.pipe) * stages + std::size_t(in.stage)) * units + std::size_t(in.mb)) *
                   kBuffers +
               which;
    }

    /// The list-scheduled event of each instruction of rank r that carries work: compute ops in the
    /// device's order (the lowering keeps it), gradient syncs and optimizer steps by their stage (the
    /// lowering may order those differently, so that every rank posts the syncs in one order).
    std::vector<std::int64_t> eventsOf(int r) const {
        const auto& ins = program(r);
        std::vector<std::int64_t> out(ins.size(), -1);
        std::size_t first = 0;
        for (int d = 0; d < r; ++d) first += m_s.order.at(std::size_t(d)).size();
        const std::vector<Op>& order = m_s.order.at(std::size_t(r));
        std::unordered_map<std::uint64_t, std::size_t> tail; // sync or optimizer -> its position
        for (std::size_t k = 0; k < order.size(); ++k)
            if (!isComputeKind(order[k].kind))
                tail.emplace(workKey(order[k].kind, order[k].pipe, order[k].stage, -1), k);
        std::size_t next = 0; // the next compute op of the device's order
        auto mismatch = [&](std::size_t i) {
            throw std::logic_error("timeLikeStagecraftRun: rank " + std::to_string(r) + "'s instruction " +
                                   std::to_string(i) + " (" + describeInstruction(m_l, ins[i]) +
                                   ") is not its device's next op");
        };
        for (std::size_t i = 0; i < ins.size(); ++i) {
            const Instruction& in = ins[i];
            if (in.kind == InstrKind::Compute) {
                while (next < order.size() && !isComputeKind(order[next].kind)) ++next;
                if (next >= order.size() || order[next].kind != in.op || order[next].stage != in.stage ||
                    order[next].mb != in.mb || order[next].pipe != in.pipe)
                    mismatch(i);
                out[i] = std::int64_t(first + next++);
            } else if (in.kind == InstrKind::GradSync || in.kind == InstrKind::Optimizer) {
                const auto it = tail.find(workKey(workKind(in), in.pipe, in.stage, -1));
                if (it == tail.end()) mismatch(i);
                out[i] = std::int64_t(first + it->second);
            }
        }
        return out;
    }

    /// Resolves rank r's program: works, what each instruction waits for, posting order.
    void prepare(int r) {
        RankState& s = m_ranks[std::size_t(r)];
        const auto& ins = program(r);
        s.work.assign(ins.size(), 0.0);
        s.awaitedTag.assign(ins.size(), -1);
        s.awaitedSync.assign(ins.size(), -1);
        s.slots = planSlots(m_l, r).uses;
        m_out.ranks[std::size_t(r)].resize(ins.size());
        m_event[std::size_t(r)] = eventsOf(r);
        std::unordered_map<std::uint64_t, std::int32_t> syncOf; // (pipe, stage) -> collective
        std::vector<std::size_t> touched;                       // entries of m_tagOf this rank set
        auto remember = [&](Buffer which, const Instruction& in) {
            const std::size_t at = bufferIndex(which, in);
            m_tagOf[at] = in.tag;
            touched.push_back(at);
        };
        for (std::size_t i = 0; i < ins.size(); ++i) {
            const Instruction& in = ins[i];
            if (const std::int64_t e = m_event[std::size_t(r)][i]; e >= 0)
                s.work[i] = m_listed.events.at(std::size_t(e)).duration();
            const std::uint64_t stage = std::uint64_t(in.pipe) << 32 | std::uint32_t(in.stage);
            switch (in.kind) {
            case InstrKind::Recv:
                remember(in.dir == Direction::F ? kReceivedF : kReceivedB, in);
                break;
            case InstrKind::Send:
                if (in.dir == Direction::F) remember(kSentF, in);
                break;
            case InstrKind::Compute:
                if (in.op == OpKind::F || in.op == OpKind::B)
                    s.awaitedTag[i] = m_tagOf[bufferIndex(in.op == OpKind::F ? kReceivedF : kReceivedB, in)];
                else if (in.op == OpKind::R)
                    s.awaitedTag[i] = m_tagOf[bufferIndex(kSentF, in)];
                break;
            case InstrKind::GradSync:
                syncOf[stage] = in.ref;
                m_syncs.at(std::size_t(in.ref)).members.emplace_back(r, i);
                break;
            case InstrKind::Optimizer:
                if (const auto it = syncOf.find(stage); it != syncOf.end()) s.awaitedSync[i] = it->second;
                break;
            case InstrKind::Wait:
                if ((in.waits == InstrKind::Send || in.waits == InstrKind::Recv) && in.ref >= 0)
                    s.awaitedTag[i] = ins[std::size_t(in.ref)].tag;
                break;
            default:
                break;
            }
        }
        for (const std::size_t at : touched) m_tagOf[at] = -1; // the next rank starts from an empty table
        s.sends = postQueues(ins, InstrKind::Send);
        s.receives = postQueues(ins, InstrKind::Recv);
    }

    /// Posts one end of a transfer at `when`; once both are, its waiters may go on.
    void post(int r, const Instruction& in, double when, std::vector<int>& ready) {
        Transfer& t = m_transfers[std::size_t(in.tag)];
        const bool send = in.kind == InstrKind::Send;
        (send ? t.sendPosted : t.recvPosted) = when;
        (send ? t.sendRank : t.recvRank) = r;
        (send ? t.sendPeer : t.recvPeer) = in.peer;
        if (!t.known()) return;
        t.time = m_links.commBetween(t.sendRank, t.recvRank, in.mb);
        for (int& waiter : t.waiters)
            if (waiter >= 0) ready.push_back(std::exchange(waiter, -1));
    }

    /// The receives the executor posts when it reaches instruction `i` (it posts early).
    void postReceives(int r, std::size_t i, std::vector<int>& ready) {
        RankState& s = m_ranks[std::size_t(r)];
        postDueReceives(
            s.receives, i, program(r)[i], true, [&](std::size_t at) { return s.slots[at].postFrom; },
            [&](std::size_t at, bool) {
                post(r, program(r)[at], s.clock, ready);
                return true;
            });
    }

    /// The sends the executor posts once instruction `i` is next.
    void postSends(int r, std::size_t i, std::vector<int>& ready) {
        RankState& s = m_ranks[std::size_t(r)];
        postDueSends(
            s.sends, i, [&](std::size_t at) { return s.slots[at].postFrom; },
            [&](std::size_t at) { post(r, program(r)[at], s.clock, ready); });
    }

    /// A rank posts its part of a gradient sync; the last member starts it on every member's lane.
    void postSync(int r, const Instruction& in, std::vector<int>& ready) {
        Sync& c = m_syncs[std::size_t(in.ref)];
        c.ready = std::max(c.ready, m_ranks[std::size_t(r)].clock);
        if (++c.posted < int(c.members.size())) return;
        double start = c.ready;
        for (const auto& [rank, at] : c.members) start = std::max(start, m_lane[std::size_t(rank)]);
        double end = start;
        for (const auto& [rank, at] : c.members) {
            const double duration = m_ranks[std::size_t(rank)].work[at];
            m_out.ranks[std::size_t(rank)][at].begin = start;
            m_out.ranks[std::size_t(rank)][at].end = start + duration;
            m_lane[std::size_t(rank)] = start + duration;
            end = std::max(end, start + duration);
        }
        c.start = start;
        c.end = end;
        ready.insert(ready.end(), c.waiters.begin(), c.waiters.end());
        c.waiters.clear();
    }

    /// Runs rank r until it waits for something not yet known, or finishes.
    void advance(int r, std::vector<int>& ready) {
        RankState& s = m_ranks[std::size_t(r)];
        const auto& ins = program(r);
        while (s.pc < ins.size()) {
            const std::size_t i = s.pc;
            const Instruction& in = ins[i];
            TimedInstruction& t = m_out.ranks[std::size_t(r)][i];
            t.start = s.clock;
            postReceives(r, i, ready);
            double begin = s.clock;
            if (const std::int64_t tag = s.awaitedTag[i]; tag >= 0) {
                Transfer& x = m_transfers[std::size_t(tag)];
                if (!x.known()) {
                    // A rank waits on a transfer it is an end of, once at a time.
                    int& slot = x.waiters[0] < 0 || x.waiters[0] == r ? x.waiters[0] : x.waiters[1];
                    if (slot >= 0 && slot != r)
                        throw std::logic_error("timeLikeStagecraftRun: a third rank waits on transfer " +
                                               std::to_string(tag));
                    slot = r;
                    return;
                }
                begin = std::max(begin, x.arrival());
            }
            if (const std::int32_t sync = s.awaitedSync[i]; sync >= 0) {
                Sync& c = m_syncs[std::size_t(sync)];
                if (std::isnan(c.end)) {
                    c.waiters.push_back(r);
                    return;
                }
                begin = std::max(begin, m_out.ranks[std::size_t(r)][syncInstruction(r, sync)].end);
            }
            if (in.kind == InstrKind::GradSync) {
                postSync(r, in, ready); // the rank goes on while the collective runs
            } else {
                t.begin = begin;
                t.end = begin +
                        (in.kind == InstrKind::Compute || in.kind == InstrKind::Optimizer ? s.work[i] : 0.0);
                s.clock = t.end;
            }
            ++s.pc;
            postSends(r, s.pc, ready);
        }
    }

    std::size_t syncInstruction(int r, std::int32_t sync) const {
        for (const auto& [rank, at] : m_syncs[std::size_t(sync)].members)
            if (rank == r) return at;
        throw std::logic_error("timeRunPrograms: an optimizer step waits for a sync its rank does not join");
    }

    /// Programs that cannot finish: every rank that waits, at which instruction, for which peer.
    void stuckRanks() const {
        int first = -1;
        std::string waits;
        for (int r = 0; r < m_l.ranks; ++r) {
            const RankState& s = m_ranks[std::size_t(r)];
            if (s.pc >= program(r).size()) continue;
            if (first < 0) first = r;
            const std::int64_t tag = s.awaitedTag[s.pc];
            const Transfer* t = tag >= 0 ? &m_transfers[std::size_t(tag)] : nullptr;
            const int peer = !t ? -1 : std::isnan(t->sendPosted) ? t->recvPeer : t->sendPeer;
            waits += (waits.empty() ? "" : "; ") +
                     ("rank " + std::to_string(r) + " at " + describeInstruction(m_l, program(r)[s.pc])) +
                     (peer >= 0 ? " for rank " + std::to_string(peer) : "");
        }
        if (first >= 0)
            throwStuck(m_l, first, m_ranks[std::size_t(first)].pc,
                       "what it waits for is never posted (" + waits + ")");
    }

    void finish() {
        for (const auto& rank : m_out.ranks)
            for (const TimedInstruction& t : rank) m_out.makespan = std::max(m_out.makespan, t.end);
        for (int r = 0; r < m_l.ranks; ++r)
            for (const Instruction& in : program(r)) {
                if (in.kind != InstrKind::Send) continue;
                const Transfer& x = m_transfers[std::size_t(in.tag)];
                if (x.time > 0) // a transfer that takes no time is drawn by none, as the simulator's
                    m_out.timeline.events.push_back(
                        transferEvent(m_l, r, in, std::max(x.sendPosted, x.recvPosted), x.arrival()));
            }
    }
};

} // namespace

Timeline timeLikeStagecraftRun(const Schedule& schedule, const Lowered& lowered, Timeline listScheduled,
                               const OpCosts& costs, ProgramTiming* programs) {
    if (lowered.ranks != schedule.devices || schedule.order.size() != std::size_t(schedule.devices))
        throw std::logic_error("timeLikeStagecraftRun: the programs are not the schedule's");
    RunTimer timer(schedule, lowered, listScheduled, costs);
    ProgramTiming timing = timer.run();
    // The compute, sync and optimizer events come first in the list-scheduled timeline, its
    // transfers after them; the programs' transfers replace those.
    std::vector<TimelineEvent>& events = listScheduled.events;
    for (std::size_t r = 0; r < timing.ranks.size(); ++r)
        for (std::size_t i = 0; i < timing.ranks[r].size(); ++i)
            if (const std::int64_t e = timer.events()[r][i]; e >= 0) {
                events[std::size_t(e)].start = timing.ranks[r][i].begin;
                events[std::size_t(e)].end = timing.ranks[r][i].end;
            }
    events.resize(schedule.opCount());
    events.insert(events.end(), timing.timeline.events.begin(), timing.timeline.events.end());
    if (programs) *programs = std::move(timing);
    return listScheduled;
}

} // namespace stagecraft
