#include "passes/replay.h"

#include "error.h"
#include "ir/stage_flow.h"

#include <deque>
#include <unordered_map>

namespace stagecraft {

const char* semanticsName(CommSemantics semantics) {
    return semantics == CommSemantics::Nccl ? "NCCL" : "MPI";
}

namespace {

struct Ref {
    int rank;
    int index;
};

/// Where transfers meet: (source, destination) under NCCL, plus the tag under MPI.
struct ChannelKey {
    int src;
    int dst;
    std::int64_t tag;
    friend bool operator==(const ChannelKey&, const ChannelKey&) = default;
};

struct ChannelKeyHash {
    std::size_t operator()(const ChannelKey& k) const {
        std::uint64_t h = std::uint64_t(k.src) * 0x9E3779B97F4A7C15ull;
        h ^= std::uint64_t(k.dst) + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
        h ^= std::uint64_t(k.tag) + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
        return std::size_t(h);
    }
};

struct Channel {
    std::deque<Ref> sends;
    std::deque<Ref> recvs;
};

/// What a rank is stopped on.
enum class State : std::uint8_t {
    Running,    ///< can run (or is running) its next instruction
    Transfers,  ///< its posted transfers [pc, groupEnd) are not all done
    Collective, ///< an Optimizer waits for its stage's collective
    Waiting,    ///< a Wait waits for its instruction
    Order,      ///< stuck for good on its own order (an input it never gets first)
    Finished,
};

class Replayer {
  public:
    Replayer(const Lowered& lowered, const ReplayOptions& options)
        : m_l(lowered), m_o(options), m_stages(std::size_t(std::max(lowered.stagesPerPipe, 0))),
          m_mbs(std::size_t(std::max(lowered.microbatches, 0))),
          m_stageSlots(std::size_t(std::max(lowered.pipes, 0)) * m_stages) {}

    ReplayResult run() {
        setUp();
        for (int r = int(m_l.programs.size()) - 1; r >= 0; --r) m_ready.push_back(r);
        while (!m_ready.empty() && !m_failed) {
            const int r = m_ready.back();
            m_ready.pop_back();
            advance(r);
        }
        if (!m_failed) report();
        return std::move(m_result);
    }

  private:
    const std::vector<Instruction>& ins(int rank) const {
        return m_l.programs[std::size_t(rank)].instructions;
    }
    std::size_t stageSlot(int pipe, int stage) const {
        return std::size_t(pipe) * m_stages + std::size_t(stage);
    }
    std::size_t mbKey(int pipe, int stage, int mb) const {
        return stageSlot(pipe, stage) * m_mbs + std::size_t(mb);
    }
    bool inShape(const Instruction& in) const {
        return in.pipe < m_l.pipes && in.stage >= 0 && std::size_t(in.stage) < m_stages &&
               (in.mb < 0 || std::size_t(in.mb) < m_mbs);
    }
    int rankOf(int pipe, int stage) const {
        return m_l.placement[std::size_t(pipe)][std::size_t(stage)].device;
    }
    bool blocking(const Instruction& in) const {
        return m_o.semantics == CommSemantics::Nccl || in.kind == InstrKind::Recv;
    }
    std::string at(int rank, int index) const {
        return "rank " + std::to_string(rank) + " waits at " + std::to_string(index) + " (" +
               describeInstruction(m_l, ins(rank)[std::size_t(index)]) + ")";
    }

    void setUp() {
        const std::size_t ranks = m_l.programs.size();
        m_pc.assign(ranks, 0);
        m_state.assign(ranks, State::Running);
        m_groupEnd.assign(ranks, 0);
        m_outstanding.assign(ranks, 0);
        m_waitOn.assign(ranks, -1);
        m_orderReason.assign(ranks, {});
        m_lane.assign(ranks, {});
        m_done.resize(ranks);
        for (std::size_t r = 0; r < ranks; ++r) m_done[r].assign(ins(int(r)).size(), 0);
        m_computeDone.assign(kComputeKindCount * m_stageSlots * m_mbs, 0);
        m_recomputed.assign(m_stageSlots * m_mbs, 0);
        m_recvDone.assign(2 * m_stageSlots * m_mbs, 0);
        m_backwardDone.assign(m_stageSlots, 0);
        m_backwardExpected.assign(m_stageSlots, 0);
        m_syncAt.assign(m_stageSlots, -1);
        const OpKind last = m_l.splitBackward ? OpKind::W : OpKind::B;
        for (std::size_t r = 0; r < ranks; ++r)
            for (std::size_t i = 0; i < ins(int(r)).size(); ++i) {
                const Instruction& in = ins(int(r))[i];
                if (!inShape(in)) continue;
                if (in.kind == InstrKind::Compute && in.op == last)
                    ++m_backwardExpected[stageSlot(in.pipe, in.stage)];
                if (in.kind == InstrKind::Compute && in.op == OpKind::R && in.mb >= 0)
                    m_recomputed[mbKey(in.pipe, in.stage, in.mb)] = 1;
                if (in.kind == InstrKind::GradSync && m_syncAt[stageSlot(in.pipe, in.stage)] < 0)
                    m_syncAt[stageSlot(in.pipe, in.stage)] = int(i);
            }
        m_headCount.assign(m_l.collectives.size(), 0);
        m_collDone.assign(m_l.collectives.size(), 0);
    }

    void fail(int rank, std::string reason) {
        m_state[std::size_t(rank)] = State::Order;
        m_orderReason[std::size_t(rank)] = std::move(reason);
    }

    /// Whether the tensors `in` consumes are on the rank: a compute op's inputs, a send's tensor.
    /// Returns the missing input's description, or empty.
    std::string missingInput(int rank, const Instruction& in) const {
        auto computed = [&](OpKind kind, int stage) {
            return m_computeDone[(std::size_t(computeSlot(kind)) * m_stageSlots) * m_mbs +
                                 mbKey(in.pipe, stage, in.mb)] != 0;
        };
        auto received = [&](Direction dir) {
            return m_recvDone[std::size_t(dir) * m_stageSlots * m_mbs + mbKey(in.pipe, in.stage, in.mb)] != 0;
        };
        auto name = [&](const char* what, int stage) {
            return std::string(what) + " " + stageName(in.pipe, stage) + " mb" + std::to_string(in.mb);
        };
        if (in.kind == InstrKind::Send) {
            const OpKind producer = in.dir == Direction::F ? OpKind::F : OpKind::B;
            return computed(producer, in.stage) ? "" : name(opKindName(producer), in.stage);
        }
        // The op of the same (stage, mb) it waits for on this rank (F for R and B, R for the B of
        // a recomputed one, B for W), then its input from the neighbouring stage (ir/stage_flow.h).
        if (const auto local = localProducer(in.op, m_recomputed[mbKey(in.pipe, in.stage, in.mb)] != 0);
            local && !computed(*local, in.stage))
            return name(opKindName(*local), in.stage);
        const int from = producerStage(in.op, in.stage, int(m_stages));
        if (from < 0) return "";
        const char* const recv = in.op == OpKind::F ? "RECV_F" : "RECV_B";
        if (rankOf(in.pipe, from) == rank) return computed(in.op, from) ? "" : name(opKindName(in.op), from);
        return received(in.op == OpKind::F ? Direction::F : Direction::B) ? "" : name(recv, in.stage);
    }

    /// Runs `rank` until it blocks or ends.
    void advance(int rank) {
        const auto& program = ins(rank);
        std::size_t& pc = m_pc[std::size_t(rank)];
        while (pc < program.size() && !m_failed) {
            const Instruction& in = program[pc];
            if (!inShape(in)) {
                fail(rank, at(rank, int(pc)) + ": it names a stage or micro-batch outside the schedule");
                return;
            }
            switch (in.kind) {
            case InstrKind::Compute: {
                if (in.mb < 0 || !isComputeKind(in.op)) {
                    fail(rank,
                         at(rank, int(pc)) + ": a compute instruction needs F, B, W or R and a micro-batch");
                    return;
                }
                const std::string missing = missingInput(rank, in);
                if (!missing.empty()) {
                    fail(rank, at(rank, int(pc)) + " for its input " + missing +
                                   ", which no earlier instruction of the rank provides");
                    return;
                }
                m_computeDone[(std::size_t(computeSlot(in.op)) * m_stageSlots) * m_mbs +
                              mbKey(in.pipe, in.stage, in.mb)] = 1;
                if (in.op == (m_l.splitBackward ? OpKind::W : OpKind::B))
                    ++m_backwardDone[stageSlot(in.pipe, in.stage)];
                m_done[std::size_t(rank)][pc++] = 1;
                break;
            }
            case InstrKind::Send:
            case InstrKind::Recv:
                if (!postTransfers(rank)) return;
                break;
            case InstrKind::GradSync:
                if (!postSync(rank, in)) return;
                break;
            case InstrKind::Optimizer: {
                const std::size_t slot = stageSlot(in.pipe, in.stage);
                const int sync = m_syncAt[slot];
                if (m_backwardDone[slot] < m_backwardExpected[slot] ||
                    (sync >= 0 && std::size_t(sync) > pc) ||
                    (sync >= 0 && rankOf(in.pipe, in.stage) != rank)) {
                    fail(rank, at(rank, int(pc)) +
                                   " for the stage's last backward and gradient sync, which " +
                                   "come later in the rank's program");
                    return;
                }
                if (sync >= 0 && !m_done[std::size_t(rank)][std::size_t(sync)]) {
                    m_state[std::size_t(rank)] = State::Collective;
                    m_waitOn[std::size_t(rank)] = sync;
                    return;
                }
                m_done[std::size_t(rank)][pc++] = 1;
                break;
            }
            case InstrKind::Wait: {
                if (in.ref < 0 || std::size_t(in.ref) >= pc) {
                    fail(rank, at(rank, int(pc)) + " for an instruction that is not before it");
                    return;
                }
                if (!m_done[std::size_t(rank)][std::size_t(in.ref)]) {
                    m_state[std::size_t(rank)] = State::Waiting;
                    m_waitOn[std::size_t(rank)] = in.ref;
                    return;
                }
                m_done[std::size_t(rank)][pc++] = 1;
                break;
            }
            case InstrKind::Unshard:
            case InstrKind::Reshard:
                m_done[std::size_t(rank)][pc++] = 1;
                break;
            }
        }
        if (pc >= program.size()) m_state[std::size_t(rank)] = State::Finished;
    }

    /// Posts the transfer at pc (or its whole group); returns true when the rank may go on.
    bool postTransfers(int rank) {
        const auto& program = ins(rank);
        const std::size_t first = m_pc[std::size_t(rank)];
        std::size_t end = first + 1;
        if (m_o.groups && program[first].group >= 0)
            while (end < program.size() && program[end].group == program[first].group &&
                   (program[end].kind == InstrKind::Send || program[end].kind == InstrKind::Recv))
                ++end;
        int outstanding = 0;
        for (std::size_t i = first; i < end; ++i) {
            const Instruction& in = program[i];
            if (in.peer < 0 || in.peer >= int(m_l.programs.size()) || in.peer == rank) {
                fail(rank, at(rank, int(i)) + ": it names no other rank as its peer");
                return false;
            }
            if (in.kind == InstrKind::Send) {
                const std::string missing = missingInput(rank, in);
                if (!missing.empty()) {
                    fail(rank, at(rank, int(i)) + " for the tensor it sends, " + missing +
                                   ", which no earlier instruction of the rank computes");
                    return false;
                }
            }
            outstanding += blocking(in) ? 1 : 0;
        }
        m_state[std::size_t(rank)] = State::Transfers;
        m_groupEnd[std::size_t(rank)] = end;
        m_outstanding[std::size_t(rank)] = outstanding;
        m_posting = rank;
        for (std::size_t i = first; i < end && !m_failed; ++i) post(rank, int(i));
        m_posting = -1;
        if (m_failed || m_outstanding[std::size_t(rank)] > 0) return false;
        m_state[std::size_t(rank)] = State::Running;
        m_pc[std::size_t(rank)] = end;
        return true;
    }

    void post(int rank, int index) {
        const Instruction& in = ins(rank)[std::size_t(index)];
        const bool send = in.kind == InstrKind::Send;
        const ChannelKey key{send ? rank : in.peer, send ? in.peer : rank,
                             m_o.semantics == CommSemantics::Mpi ? in.tag : -1};
        Channel& channel = m_channels[key];
        (send ? channel.sends : channel.recvs).push_back({rank, index});
        while (!channel.sends.empty() && !channel.recvs.empty() && !m_failed) {
            const Ref s = channel.sends.front(), r = channel.recvs.front();
            const Instruction& a = ins(s.rank)[std::size_t(s.index)];
            const Instruction& b = ins(r.rank)[std::size_t(r.index)];
            if (a.tag != b.tag || a.bytes != b.bytes || a.dir != b.dir || a.mb != b.mb || a.pipe != b.pipe) {
                mismatch(s, r);
                return;
            }
            channel.sends.pop_front();
            channel.recvs.pop_front();
            m_result.completed.push_back({s.rank, s.index, r.rank, r.index});
            complete(s);
            complete(r);
        }
    }

    void mismatch(Ref s, Ref r) {
        m_failed = true;
        m_result.id = "lower.mismatch";
        m_result.message =
            "under " + std::string(semanticsName(m_o.semantics)) + " semantics rank " +
            std::to_string(s.rank) + "'s send at " + std::to_string(s.index) + " (" +
            describeInstruction(m_l, ins(s.rank)[std::size_t(s.index)]) + ") meets rank " +
            std::to_string(r.rank) + "'s receive at " + std::to_string(r.index) + " (" +
            describeInstruction(m_l, ins(r.rank)[std::size_t(r.index)]) +
            "): transfers between two ranks are matched in the order they are posted, so these "
            "would exchange different tensors";
    }

    void complete(Ref x) {
        const Instruction& in = ins(x.rank)[std::size_t(x.index)];
        m_done[std::size_t(x.rank)][std::size_t(x.index)] = 1;
        if (in.kind == InstrKind::Recv)
            m_recvDone[std::size_t(in.dir) * m_stageSlots * m_mbs + mbKey(in.pipe, in.stage, in.mb)] = 1;
        const auto r = std::size_t(x.rank);
        if (m_state[r] == State::Transfers && std::size_t(x.index) >= m_pc[r] &&
            std::size_t(x.index) < m_groupEnd[r] && blocking(in) && --m_outstanding[r] == 0 &&
            m_posting != x.rank) {
            m_state[r] = State::Running;
            m_pc[r] = m_groupEnd[r];
            m_ready.push_back(x.rank);
        }
        wakeWaiter(x);
    }

    void wakeWaiter(Ref x) {
        const auto r = std::size_t(x.rank);
        if ((m_state[r] == State::Waiting || m_state[r] == State::Collective) && m_waitOn[r] == x.index) {
            m_state[r] = State::Running;
            m_ready.push_back(x.rank);
        }
    }

    /// Posts a gradient sync on the rank's collective lane.
    bool postSync(int rank, const Instruction& in) {
        const std::size_t pc = m_pc[std::size_t(rank)];
        if (in.ref < 0 || std::size_t(in.ref) >= m_l.collectives.size()) {
            fail(rank, at(rank, int(pc)) + ": it names no collective");
            return false;
        }
        const std::size_t slot = stageSlot(in.pipe, in.stage);
        if (m_backwardDone[slot] < m_backwardExpected[slot]) {
            fail(rank, at(rank, int(pc)) +
                           " for the stage's last backward, which comes later in the rank's program");
            return false;
        }
        m_done[std::size_t(rank)][pc] = 0; // done when the collective completes
        ++m_pc[std::size_t(rank)];
        auto& lane = m_lane[std::size_t(rank)];
        lane.push_back({rank, int(pc)});
        if (lane.size() == 1) onHead(rank);
        return true;
    }

    int collectiveAt(Ref x) const { return ins(x.rank)[std::size_t(x.index)].ref; }

    /// `rank`'s lane has a new first collective: start it when it is first on every member's lane.
    void onHead(int first) {
        std::vector<int> heads{first};
        while (!heads.empty()) {
            const int rank = heads.back();
            heads.pop_back();
            const int c = collectiveAt(m_lane[std::size_t(rank)].front());
            if (++m_headCount[std::size_t(c)] < int(m_l.collectives[std::size_t(c)].ranks.size())) continue;
            m_collDone[std::size_t(c)] = 1;
            for (int member : m_l.collectives[std::size_t(c)].ranks) {
                auto& lane = m_lane[std::size_t(member)];
                if (lane.empty() || collectiveAt(lane.front()) != c) continue; // not a poster (malformed)
                const Ref x = lane.front();
                lane.pop_front();
                m_done[std::size_t(x.rank)][std::size_t(x.index)] = 1;
                wakeWaiter(x);
                if (!lane.empty()) heads.push_back(member);
            }
        }
    }

    /// Who a stopped rank waits for, and why.
    WaitingRank describe(int rank) const {
        const auto r = std::size_t(rank);
        WaitingRank w;
        w.rank = rank;
        switch (m_state[r]) {
        case State::Transfers:
            for (std::size_t i = m_pc[r]; i < m_groupEnd[r]; ++i) {
                const Instruction& in = ins(rank)[i];
                if (m_done[r][i] || !blocking(in)) continue;
                w.position = int(i);
                w.waitsFor = in.peer;
                const std::string counterpart =
                    transferName(in.kind == InstrKind::Send ? InstrKind::Recv : InstrKind::Send, in.dir);
                w.reason = at(rank, int(i)) + " for rank " + std::to_string(in.peer) +
                           " to post the matching " + counterpart;
                if (m_state[std::size_t(in.peer)] == State::Finished)
                    w.reason += ", but rank " + std::to_string(in.peer) + " has run its whole program";
                break;
            }
            break;
        case State::Collective:
        case State::Finished:
            return describeLane(rank);
        case State::Waiting: {
            w.position = int(m_pc[r]);
            const Instruction& target = ins(rank)[std::size_t(m_waitOn[r])];
            w.waitsFor = target.peer;
            w.reason = at(rank, w.position) + " for its send at " + std::to_string(m_waitOn[r]) +
                       " to meet rank " + std::to_string(target.peer) + "'s receive";
            break;
        }
        case State::Order:
        case State::Running:
            w.position = int(m_pc[r]);
            w.reason = m_orderReason[r];
            break;
        }
        if (w.position >= 0) w.instruction = describeInstruction(m_l, ins(rank)[std::size_t(w.position)]);
        return w;
    }

    /// A rank whose Optimizer waits for a collective, or whose program ended with collectives
    /// still on its lane: the collective first on its lane, and a member that does not have it first.
    WaitingRank describeLane(int rank) const {
        const auto r = std::size_t(rank);
        WaitingRank w;
        w.rank = rank;
        const auto& lane = m_lane[r];
        if (lane.empty()) return w;
        const Ref head = lane.front();
        const int c = collectiveAt(head);
        std::string where;
        if (m_state[r] == State::Collective) {
            w.position = int(m_pc[r]);
            where = at(rank, w.position) + " for its gradient sync at " + std::to_string(m_waitOn[r]);
            if (head.index != m_waitOn[r])
                where += ", which is behind " + describeInstruction(m_l, ins(rank)[std::size_t(head.index)]) +
                         " at " + std::to_string(head.index) + " on its collective lane";
        } else {
            w.position = head.index;
            where = "rank " + std::to_string(rank) +
                    " has run its program, but its collective lane waits at " + std::to_string(head.index) +
                    " (" + describeInstruction(m_l, ins(rank)[std::size_t(head.index)]) + ")";
        }
        for (int member : m_l.collectives[std::size_t(c)].ranks) {
            const auto& other = m_lane[std::size_t(member)];
            if (member == rank || (!other.empty() && collectiveAt(other.front()) == c)) continue;
            w.waitsFor = member;
            where +=
                ": the collective needs rank " + std::to_string(member) + ", which has " +
                (other.empty() ? std::string("not posted it yet")
                               : "another collective first on its lane (" +
                                     describeInstruction(m_l, ins(member)[std::size_t(other.front().index)]) +
                                     " at " + std::to_string(other.front().index) + ")");
            break;
        }
        w.reason = where;
        w.instruction = describeInstruction(m_l, ins(rank)[std::size_t(w.position)]);
        return w;
    }

    void report() {
        const std::string semantics = semanticsName(m_o.semantics);
        std::vector<int> next(m_l.programs.size(), -1);
        std::string orderMessage;
        for (std::size_t r = 0; r < m_l.programs.size(); ++r) {
            const bool laneStuck = !m_lane[r].empty();
            if (m_state[r] == State::Finished && !laneStuck) continue;
            WaitingRank w = describe(int(r));
            if (m_state[r] == State::Order && orderMessage.empty()) orderMessage = w.reason;
            next[r] = w.waitsFor;
            m_result.blocked.push_back(std::move(w));
        }
        if (m_result.blocked.empty()) {
            reportUnreceived();
            return;
        }
        if (!orderMessage.empty()) {
            m_result.id = "lower.order";
            m_result.message = orderMessage;
            return;
        }
        findRing(next);
        std::string message;
        const char* separator = "";
        if (!m_result.ring.empty()) {
            m_result.id = "lower.deadlock";
            message = "deadlock under " + semantics + " semantics: ranks wait on each other in a ring: ";
            for (int rank : m_result.ring)
                for (const WaitingRank& w : m_result.blocked)
                    if (w.rank == rank) {
                        message += separator + w.reason;
                        separator = "; ";
                    }
        } else {
            m_result.id = "lower.unmatched";
            message = "under " + semantics + " semantics ranks wait for transfers no rank posts: ";
            for (const WaitingRank& w : m_result.blocked) {
                message += separator + w.reason;
                separator = "; ";
            }
        }
        m_result.message = message;
    }

    /// Sends posted under MPI that no receive took.
    void reportUnreceived() {
        // The first left-over transfer by (rank, position), so the message does not depend on
        // the hash table's order.
        Ref x{-1, -1};
        for (const auto& [key, channel] : m_channels)
            for (const std::deque<Ref>* left : {&channel.sends, &channel.recvs})
                if (!left->empty() && (x.rank < 0 || std::pair(left->front().rank, left->front().index) <
                                                         std::pair(x.rank, x.index)))
                    x = left->front();
        if (x.rank >= 0) {
            m_result.id = "lower.unmatched";
            m_result.message =
                "under " + std::string(semanticsName(m_o.semantics)) + " semantics rank " +
                std::to_string(x.rank) + "'s " + describeInstruction(m_l, ins(x.rank)[std::size_t(x.index)]) +
                " at " + std::to_string(x.index) + " is never matched: rank " +
                std::to_string(ins(x.rank)[std::size_t(x.index)].peer) + " posts no counterpart for it";
        }
    }

    void findRing(const std::vector<int>& next) {
        for (const WaitingRank& start : m_result.blocked) {
            std::vector<int> seenAt(next.size(), -1);
            std::vector<int> path;
            for (int r = start.rank; r >= 0; r = next[std::size_t(r)]) {
                if (seenAt[std::size_t(r)] >= 0) {
                    m_result.ring.assign(path.begin() + seenAt[std::size_t(r)], path.end());
                    return;
                }
                seenAt[std::size_t(r)] = int(path.size());
                path.push_back(r);
            }
        }
    }

    const Lowered& m_l;
    const ReplayOptions& m_o;
    std::size_t m_stages, m_mbs, m_stageSlots;
    std::vector<std::size_t> m_pc, m_groupEnd;
    std::vector<State> m_state;
    std::vector<int> m_outstanding, m_waitOn;
    std::vector<std::string> m_orderReason;
    std::vector<std::deque<Ref>> m_lane;
    std::vector<std::vector<char>> m_done;
    std::vector<char> m_computeDone, m_recvDone, m_collDone;
    std::vector<char> m_recomputed; // [mbKey]: the programs have an R for it
    std::vector<int> m_backwardDone, m_backwardExpected, m_syncAt, m_headCount;
    std::unordered_map<ChannelKey, Channel, ChannelKeyHash> m_channels;
    std::vector<int> m_ready;
    int m_posting = -1;
    bool m_failed = false;
    ReplayResult m_result;
};

} // namespace

ReplayResult replay(const Lowered& lowered, const ReplayOptions& options) {
    return Replayer(lowered, options).run();
}

void requireDeadlockFree(const Lowered& lowered, const ReplayOptions& options) {
    const ReplayResult result = replay(lowered, options);
    if (result.ok()) return;
    const int rank = result.ring.empty() ? (result.blocked.empty() ? -1 : result.blocked.front().rank)
                                         : result.ring.front();
    throw ValidationError(result.id, rank >= 0 ? "rank " + std::to_string(rank) : "programs",
                          "'" + lowered.name + "': " + result.message);
}

} // namespace stagecraft
