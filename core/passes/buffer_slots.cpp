#include "passes/buffer_slots.h"

#include <unordered_map>

namespace stagecraft {

namespace {

std::uint64_t bufferOf(const Instruction& in) {
    return (std::uint64_t(in.pipe) << 56) | (std::uint64_t(std::uint32_t(in.stage)) << 28) |
           std::uint64_t(std::uint32_t(in.mb));
}

/// The compute op of (kind, pipe, stage, mb), as one key.
std::uint64_t computeOf(OpKind kind, const Instruction& in) {
    return bufferOf(in) << 3 ^ std::uint64_t(kind);
}

class SlotPlanner {
  public:
    explicit SlotPlanner(const std::vector<Instruction>& program) : m_program(program) {
        m_out.uses.resize(program.size());
    }

    RankSlots plan() {
        findLifetimes();
        for (std::size_t i = 0; i < m_program.size(); ++i) {
            const Instruction& in = m_program[i];
            if (usesSlot(in)) place(i, in);
            if (in.kind == InstrKind::Send) placeSend(i, in);
            if (in.kind == InstrKind::Compute) m_computeAt[computeOf(in.op, in)] = std::int32_t(i);
            const bool groupGoesOn =
                in.group >= 0 && i + 1 < m_program.size() && m_program[i + 1].group == in.group;
            if (!groupGoesOn) release(i);
        }
        m_out.keys = std::int32_t(m_lastUse.size());
        return std::move(m_out);
    }

  private:
    /// The last instruction of every buffer, so that its slot goes back after it.
    void findLifetimes() {
        for (std::size_t i = 0; i < m_program.size(); ++i) {
            const Instruction& in = m_program[i];
            if (!usesSlot(in)) continue;
            const auto [it, fresh] = m_keyOf.emplace(bufferOf(in), std::int32_t(m_lastUse.size()));
            if (fresh) m_lastUse.push_back(-1);
            m_lastUse[std::size_t(it->second)] = std::int32_t(i);
        }
        m_slotOfKey.assign(m_lastUse.size(), -1);
        m_takenAt.assign(m_lastUse.size(), -1);
    }

    /// The buffer's slot: taken at its first instruction (the last slot given back, else a new
    /// one), given back after its last; how early a receive into it may be posted.
    void place(std::size_t i, const Instruction& in) {
        SlotUse& use = m_out.uses[i];
        const std::int32_t key = m_keyOf.at(bufferOf(in));
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
        const auto producer = m_computeAt.find(computeOf(in.dir == Direction::F ? OpKind::F : OpKind::B, in));
        m_out.uses[i].postFrom = producer == m_computeAt.end() ? std::int32_t(i) : producer->second + 1;
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
    std::unordered_map<std::uint64_t, std::int32_t> m_keyOf;     // buffer -> key
    std::unordered_map<std::uint64_t, std::int32_t> m_computeAt; // compute op -> its instruction
    std::vector<std::int32_t> m_lastUse;                         // [key]: its last instruction
    std::vector<std::int32_t> m_slotOfKey, m_takenAt;            // [key]
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
