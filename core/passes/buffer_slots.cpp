#include "passes/buffer_slots.h"

#include <algorithm>

namespace stagecraft {

namespace {

constexpr std::int32_t kNone = -1;

class SlotPlanner {
  public:
    explicit SlotPlanner(const std::vector<Instruction>& program) : m_program(program) {
        m_out.uses.resize(program.size());
        indexBuffers();
    }

    RankSlots plan() {
        findLifetimes();
        for (std::size_t i = 0; i < m_program.size(); ++i) {
            const Instruction& in = m_program[i];
            if (usesSlot(in)) place(i, in);
            if (in.kind == InstrKind::Send) placeSend(i, in);
            if (in.kind == InstrKind::Compute && (in.op == OpKind::F || in.op == OpKind::B))
                (in.op == OpKind::F ? m_forwardAt : m_backwardAt)[bufferOf(in)] = std::int32_t(i);
            const bool groupGoesOn =
                in.group >= 0 && i + 1 < m_program.size() && m_program[i + 1].group == in.group;
            if (!groupGoesOn) release(i);
        }
        m_out.keys = std::int32_t(m_lastUse.size());
        return std::move(m_out);
    }

  private:
    /// Buffers (pipe, stage, micro-batch) as dense indices: the (pipe, stage) pairs this program
    /// names, in order of appearance, times its micro-batches. Flat tables instead of hash maps
    /// keep a million-op timing linear with a small constant.
    void indexBuffers() {
        int pipes = 0, stages = 0, microbatches = 0;
        for (const Instruction& in : m_program) {
            if (in.mb < 0) continue;
            pipes = std::max(pipes, int(in.pipe) + 1);
            stages = std::max(stages, in.stage + 1);
            microbatches = std::max(microbatches, in.mb + 1);
        }
        m_stages = stages;
        m_localOf.assign(std::size_t(pipes) * std::size_t(stages), kNone);
        int locals = 0;
        for (const Instruction& in : m_program) {
            if (in.mb < 0) continue;
            std::int32_t& local =
                m_localOf[std::size_t(in.pipe) * std::size_t(stages) + std::size_t(in.stage)];
            if (local == kNone) local = locals++;
        }
        m_microbatches = microbatches;
        const std::size_t buffers = std::size_t(locals) * std::size_t(microbatches);
        m_keyOf.assign(buffers, kNone);
        m_forwardAt.assign(buffers, kNone);
        m_backwardAt.assign(buffers, kNone);
    }

    std::size_t bufferOf(const Instruction& in) const {
        const std::int32_t local =
            m_localOf[std::size_t(in.pipe) * std::size_t(m_stages) + std::size_t(in.stage)];
        return std::size_t(local) * std::size_t(m_microbatches) + std::size_t(in.mb);
    }

    /// The last instruction of every buffer, so that its slot goes back after it.
    void findLifetimes() {
        for (std::size_t i = 0; i < m_program.size(); ++i) {
            const Instruction& in = m_program[i];
            if (!usesSlot(in)) continue;
            std::int32_t& key = m_keyOf[bufferOf(in)];
            if (key == kNone) {
                key = std::int32_t(m_lastUse.size());
                m_lastUse.push_back(-1);
            }
            m_lastUse[std::size_t(key)] = std::int32_t(i);
        }
        m_slotOfKey.assign(m_lastUse.size(), -1);
        m_takenAt.assign(m_lastUse.size(), -1);
    }

    /// The buffer's slot: taken at its first instruction (the last slot given back, else a new
    /// one), given back after its last; how early a receive into it may be posted.
    void place(std::size_t i, const Instruction& in) {
        SlotUse& use = m_out.uses[i];
        const std::int32_t key = m_keyOf[bufferOf(in)];
        use.key = key;
        if (m_slotOfKey[std::size_t(key)] < 0) {
            std::int32_t slot;
            if (m_freeSlots.empty()) {
                slot = m_out.slots++;
                m_freeSince.push_back(0);
            } else {
                slot = m_freeSlots.back();
                m_freeSlots.pop_back();
            }
            m_slotOfKey[std::size_t(key)] = slot;
            m_takenAt[std::size_t(key)] = std::int32_t(i);
            use.take = true;
            if (in.kind == InstrKind::Recv) use.postFrom = m_freeSince[std::size_t(slot)];
        } else if (in.kind == InstrKind::Recv) {
            use.postFrom = m_takenAt[std::size_t(key)] + 1; // into the buffer its micro-batch holds
        }
        use.slot = m_slotOfKey[std::size_t(key)];
        if (m_lastUse[std::size_t(key)] == std::int32_t(i)) {
            use.giveBack = true;
            m_deferred.push_back(key);
        }
    }

    /// A send may be posted once the compute that produced its tensor on this rank ran.
    void placeSend(std::size_t i, const Instruction& in) {
        const std::int32_t producer =
            in.mb < 0 ? kNone : (in.dir == Direction::F ? m_forwardAt : m_backwardAt)[bufferOf(in)];
        m_out.uses[i].postFrom = producer == kNone ? std::int32_t(i) : producer + 1;
    }

    /// After a group (or a lone instruction): the slots whose last use it held are free again.
    void release(std::size_t i) {
        for (const std::int32_t key : m_deferred) {
            const std::int32_t slot = m_slotOfKey[std::size_t(key)];
            m_freeSlots.push_back(slot);
            m_freeSince[std::size_t(slot)] = std::int32_t(i) + 1;
        }
        m_deferred.clear();
    }

    const std::vector<Instruction>& m_program;
    RankSlots m_out;
    int m_stages = 0, m_microbatches = 0;
    std::vector<std::int32_t> m_localOf;                 // [pipe * stages + stage]: local stage
    std::vector<std::int32_t> m_keyOf;                   // [buffer]: its key, in order of first use
    std::vector<std::int32_t> m_forwardAt, m_backwardAt; // [buffer]: its latest F / B instruction
    std::vector<std::int32_t> m_lastUse;                 // [key]: its last instruction
    std::vector<std::int32_t> m_slotOfKey, m_takenAt;    // [key]
    std::vector<std::int32_t> m_freeSlots, m_freeSince, m_deferred;
};

} // namespace

bool usesSlot(const Instruction& in) {
    if (in.mb < 0) return false;
    const bool transfer =
        in.kind == InstrKind::Send || in.kind == InstrKind::Recv ||
        (in.kind == InstrKind::Wait && (in.waits == InstrKind::Send || in.waits == InstrKind::Recv));
    const bool sendsGradient =
        in.dir == Direction::B &&
        (in.kind == InstrKind::Send || (in.kind == InstrKind::Wait && in.waits == InstrKind::Send));
    return in.kind == InstrKind::Compute || (transfer && !sendsGradient);
}

RankSlots planSlots(const Lowered& lowered, int rank) {
    return SlotPlanner(lowered.programs.at(std::size_t(rank)).instructions).plan();
}

} // namespace stagecraft
