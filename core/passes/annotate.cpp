// annotatePrograms (declared in passes/lower.h): everything about a program that follows from its
// instructions' identities and order.
#include "passes/lower.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace stagecraft {

namespace {

/// Instructions that use the activation buffer of their (pipe, stage, mb): the ops, the
/// receive that fills it with the stage's input, the send of the output a forward leaves in it,
/// the receive of the gradient of that output, and waits on those. Not SEND_B: the input gradient
/// a backward sends is that backward's output, which the runtime keeps until the send completes
/// whether or not the micro-batch still holds its buffer.
bool usesBuffer(const Instruction& in) {
    const bool transfer = isTransfer(in) || (in.kind == InstrKind::Wait &&
                                             (in.waits == InstrKind::Send || in.waits == InstrKind::Recv));
    const bool sendsGradient =
        in.dir == Direction::B &&
        (in.kind == InstrKind::Send || (in.kind == InstrKind::Wait && in.waits == InstrKind::Send));
    return in.kind == InstrKind::Compute || (transfer && !sendsGradient);
}

class Annotator {
  public:
    Annotator(Lowered& lowered, const LowerOptions& options)
        : m_l(lowered), m_options(options), m_stages(std::size_t(lowered.stagesPerPipe)),
          m_mbs(std::size_t(std::max(lowered.microbatches, 0))),
          m_stageSlots(std::size_t(lowered.pipes) * m_stages) {}

    void run() {
        if (int(m_l.programs.size()) != m_l.ranks || int(m_l.placement.size()) != m_l.pipes)
            throw std::logic_error("annotatePrograms: programs or placement do not match the shape");
        for (auto& program : m_l.programs)
            for (std::size_t i = 0; i < program.instructions.size(); ++i)
                identify(program.rank, program.instructions[i]);
        assignGroups();
        assignCollectives();
        assignSlots();
    }

  private:
    std::size_t keyOf(const Instruction& in) const {
        return (std::size_t(in.pipe) * m_stages + std::size_t(in.stage)) * m_mbs + std::size_t(in.mb);
    }

    /// Checks that the instruction names a stage of `rank`, and fills the peer, tag and bytes of a
    /// transfer.
    void identify(int rank, Instruction& in) const {
        if (in.pipe >= m_l.pipes || in.stage < 0 || std::size_t(in.stage) >= m_stages ||
            m_l.placement[in.pipe][std::size_t(in.stage)].device != rank)
            throw std::logic_error("annotatePrograms: " + describeInstruction(m_l, in) + " on rank " +
                                   std::to_string(rank) + " names a stage the rank does not hold");
        if ((usesBuffer(in) || isTransfer(in)) && (in.mb < 0 || std::size_t(in.mb) >= m_mbs))
            throw std::logic_error("annotatePrograms: micro-batch out of range");
        if (!isTransfer(in)) return;
        const int other = peerStage(in);
        if (other < 0 || std::size_t(other) >= m_stages ||
            m_l.placement[in.pipe][std::size_t(other)].device == rank)
            throw std::logic_error("annotatePrograms: " + describeInstruction(m_l, in) + " on rank " +
                                   std::to_string(rank) + " has no peer on another rank");
        in.peer = m_l.placement[in.pipe][std::size_t(other)].device;
        const int edge = std::min(in.stage, other); // boundary edge -> edge + 1
        const auto edges = std::int64_t(m_stages - 1);
        in.tag = ((std::int64_t(in.mb) * m_l.pipes + in.pipe) * edges + edge) * 2 + int(in.dir);
        in.bytes = m_options.boundaryBytes.empty() ? 1 : m_options.boundaryBytes[std::size_t(edge)];
        if (const auto& shares = m_options.sliceShares; !shares.empty()) {
            const double share = shares[std::size_t(in.mb) % shares.size()];
            in.bytes = std::max<std::uint64_t>(1, std::uint64_t(std::llround(double(in.bytes) * share)));
        }
    }

    /// Maximal runs of two or more adjacent transfers are posted together.
    void assignGroups() {
        for (auto& program : m_l.programs) {
            auto& ins = program.instructions;
            int next = 0;
            for (std::size_t i = 0; i < ins.size();) {
                if (!isTransfer(ins[i])) {
                    ins[i++].group = -1;
                    continue;
                }
                std::size_t end = i;
                while (end < ins.size() && isTransfer(ins[end])) ++end;
                const int id = end - i >= 2 ? next++ : -1;
                for (; i < end; ++i) ins[i].group = id;
            }
        }
    }

    /// One collective per stage index: the ranks whose programs sync that stage in any pipe.
    void assignCollectives() {
        std::vector<std::vector<int>> ranksOfStage(m_stages);
        for (const auto& program : m_l.programs)
            for (const Instruction& in : program.instructions)
                if (in.kind == InstrKind::GradSync)
                    ranksOfStage[std::size_t(in.stage)].push_back(program.rank);
        std::vector<std::int32_t> idOfStage(m_stages, -1);
        m_l.collectives.clear();
        for (std::size_t s = 0; s < m_stages; ++s) {
            auto& ranks = ranksOfStage[s];
            if (ranks.empty()) continue;
            std::sort(ranks.begin(), ranks.end());
            ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
            idOfStage[s] = std::int32_t(m_l.collectives.size());
            m_l.collectives.push_back({int(s), std::move(ranks)});
        }
        for (auto& program : m_l.programs)
            for (Instruction& in : program.instructions)
                if (in.kind == InstrKind::GradSync) {
                    in.ref = idOfStage[std::size_t(in.stage)];
                    if (std::size_t(in.stage) < m_options.gradientBytes.size())
                        in.bytes = m_options.gradientBytes[std::size_t(in.stage)];
                }
    }

    /// A (pipe, stage, mb) holds one activation buffer from its first instruction to its last on
    /// its rank (like DeepSpeed's pipe buffers: the received input, the saved activations, the
    /// output and its gradient of one micro-batch), i.e. from its RECV_F or F to its last backward
    /// op, which is what the papers count as in-flight activations. A buffer freed inside a group
    /// is reused only after the group, whose transfers are all in flight together. Freed buffers
    /// are reused last-in first-out; the count is the most held at once.
    void assignSlots() {
        std::vector<std::int32_t> last(m_stageSlots * m_mbs, -1);
        std::vector<std::int32_t> slotOf(m_stageSlots * m_mbs, -1);
        for (const auto& program : m_l.programs)
            for (std::size_t i = 0; i < program.instructions.size(); ++i)
                if (usesBuffer(program.instructions[i]))
                    last[keyOf(program.instructions[i])] = std::int32_t(i);
        m_l.buffers.assign(m_stageSlots, 0);
        m_l.peakBuffers.assign(std::size_t(m_l.ranks), 0);
        std::vector<std::vector<std::int32_t>> free(m_stageSlots);
        for (auto& program : m_l.programs) {
            auto& ins = program.instructions;
            int rankLive = 0;
            std::vector<std::size_t> deferred; // keys freed when the current group ends
            auto release = [&](std::size_t key) {
                const std::size_t stageSlot = key / m_mbs;
                free[stageSlot].push_back(slotOf[key]);
                --rankLive;
            };
            for (std::size_t i = 0; i < ins.size(); ++i) {
                Instruction& in = ins[i];
                if (usesBuffer(in)) {
                    const std::size_t key = keyOf(in);
                    const std::size_t stageSlot = key / m_mbs;
                    if (slotOf[key] < 0) {
                        auto& pool = free[stageSlot];
                        if (pool.empty()) {
                            slotOf[key] = m_l.buffers[stageSlot]++;
                        } else {
                            slotOf[key] = pool.back();
                            pool.pop_back();
                        }
                        m_l.peakBuffers[std::size_t(program.rank)] =
                            std::max(m_l.peakBuffers[std::size_t(program.rank)], ++rankLive);
                    }
                    in.slot = slotOf[key];
                    if (last[key] == std::int32_t(i)) deferred.push_back(key);
                }
                const bool groupGoesOn = in.group >= 0 && i + 1 < ins.size() && ins[i + 1].group == in.group;
                if (groupGoesOn) continue;
                for (std::size_t key : deferred) release(key);
                deferred.clear();
            }
        }
    }

    Lowered& m_l;
    const LowerOptions& m_options;
    std::size_t m_stages;
    std::size_t m_mbs;
    std::size_t m_stageSlots;
};

} // namespace

void annotatePrograms(Lowered& lowered, const LowerOptions& options) {
    // Programs carry no slice count (lower() checks the shares against the schedule's).
    checkBoundaryBytes(options, lowered.stagesPerPipe, std::max<int>(1, int(options.sliceShares.size())));
    Annotator(lowered, options).run();
}

} // namespace stagecraft
