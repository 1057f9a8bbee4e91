// makeRankPlan (run_plan.h): one rank's lowered program resolved for the executor, step by step
// (buffer lifetimes, slots, the order of sends and receives, what each instruction waits for,
// durations and labels).
#include "ir/op_name.h"
#include "passes/buffer_slots.h"
#include "plan/run_plan.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace stagecraft::runtime {
namespace {

/// The op's identity (ir/op.h) from an instruction's fields.
std::uint64_t opKey(OpKind kind, int pipe, int stage, int mb) {
    return opIdentity(Op{kind, std::uint8_t(pipe), 0, stage, mb});
}

std::uint64_t bufferKey(int pipe, int stage, int mb) {
    return (std::uint64_t(pipe) << 56) | (std::uint64_t(std::uint32_t(stage)) << 28) |
           std::uint64_t(std::uint32_t(mb));
}

/// torch's profiler names: "PP:" + the action string ("2F0", "0SEND_F1", "0REDUCE_GRAD").
std::string labelOf(const Lowered& lowered, const Instruction& in) {
    const bool splitBackward = lowered.splitBackward;
    const std::string pipe = in.pipe != 0 ? "p" + std::to_string(in.pipe) + ":" : "";
    switch (in.kind) {
    case InstrKind::Compute:
        return "PP:" + opName(lowered.opOf(in), splitBackward); // "2R0" for a recompute torch cannot name
    case InstrKind::Send:
    case InstrKind::Recv:
        return "PP:" + pipe + std::to_string(in.stage) + transferName(in.kind, in.dir) +
               std::to_string(in.mb);
    case InstrKind::GradSync:
        return "PP:" + pipe + std::to_string(in.stage) + "REDUCE_GRAD";
    case InstrKind::Optimizer:
        return "PP:" + pipe + std::to_string(in.stage) + "OPTIMIZER";
    case InstrKind::Wait:
        return "PP:" + pipe + std::to_string(in.stage) + "WAIT";
    case InstrKind::Unshard:
        return "PP:" + pipe + std::to_string(in.stage) + "UNSHARD";
    case InstrKind::Reshard:
        return "PP:" + pipe + std::to_string(in.stage) + "RESHARD";
    }
    return "PP:?";
}

bool isGradientSend(const Instruction& in) {
    return in.kind == InstrKind::Send && in.dir == Direction::B && in.mb >= 0;
}

/// makeRankPlan's steps over one rank's program; what they share is the plan being built and the
/// lookups of what came earlier in the program.
class RankPlanBuilder {
  public:
    RankPlanBuilder(const RunPlan& plan, int rank)
        : m_plan(plan), m_lowered(plan.lowered),
          m_program(plan.lowered.programs.at(std::size_t(rank)).instructions) {
        m_out.rank = rank;
        m_out.steps.resize(m_program.size());
    }

    RankPlan build() {
        predictDurations();
        for (const Instruction& in : m_program)
            if (isGradientSend(in)) m_sentGradients.emplace(bufferOf(in), 0);
        const RankSlots slots = planSlots(m_lowered, m_out.rank);
        m_out.keys = slots.keys;
        m_out.slots = slots.slots;
        for (std::size_t i = 0; i < m_program.size(); ++i) {
            const Instruction& in = m_program[i];
            Step& step = m_out.steps[i];
            const SlotUse& use = slots.uses[i];
            step.instr = in;
            step.label = labelOf(m_lowered, in);
            step.key = use.key;
            step.slot = use.slot;
            step.take = use.take;
            step.giveBack = use.giveBack;
            step.postFrom = use.postFrom;
            placeStage(in, step);
            noteOrder(i, in);
            resolveWaits(i, in, step);
        }
        planKeysValues();
        finish();
        return std::move(m_out);
    }

  private:
    static std::uint64_t stageKey(const Instruction& in) {
        return std::uint64_t(in.pipe) << 32 | std::uint32_t(in.stage);
    }
    static std::uint64_t bufferOf(const Instruction& in) { return bufferKey(in.pipe, in.stage, in.mb); }

    /// The predicted duration of every op of this rank (the sleep workload waits that long).
    void predictDurations() {
        for (const TimelineEvent& e : m_plan.prediction.timeline.events) {
            if (e.device != m_out.rank || (e.lane == Lane::Comm && e.comm != CommKind::Collective)) continue;
            m_duration[opKey(e.op.kind, e.op.pipe, e.op.stage, e.op.mb)] = e.duration();
        }
    }

    double predicted(OpKind kind, const Instruction& in, int mb) const {
        const auto d = m_duration.find(opKey(kind, in.pipe, in.stage, mb));
        return d == m_duration.end() ? 0.0 : d->second;
    }

    /// The local stage the instruction works on, added the first time one is met.
    void placeStage(const Instruction& in, Step& step) {
        if (in.kind != InstrKind::Compute && in.kind != InstrKind::GradSync &&
            in.kind != InstrKind::Optimizer && in.kind != InstrKind::Send && in.kind != InstrKind::Recv &&
            !usesSlot(in))
            return;
        auto [it, fresh] = m_stageOf.emplace(stageKey(in), std::int32_t(m_out.stages.size()));
        if (fresh) {
            LocalStage local{in.pipe, in.stage,
                             stageShape(m_plan.project, m_plan.prediction.schedule, in.stage)};
            const std::vector<int>& lengths = m_plan.sliceLengths;
            if (lengths.size() > 1)
                for (int q = 0; q < int(lengths.size()); ++q)
                    local.slices.push_back(sliceShape(local.shape, lengths, q));
            m_out.stages.push_back(std::move(local));
        }
        step.shape = it->second;
    }

    /// The model workload of sequence slices: each micro-batch's key-value buffer on a stage, from
    /// the first compute of any of its slices to the last, in a pool handed from one micro-batch
    /// to the next (last-in first-out, as the activation slots).
    void planKeysValues() {
        const int slices = int(m_plan.sliceLengths.size());
        if (m_plan.workload != Workload::Model || slices <= 1) return;
        std::unordered_map<std::uint64_t, std::size_t> last; // (pipe, stage, micro-batch) -> compute
        const auto keyOf = [&](const Instruction& in) {
            return bufferKey(in.pipe, in.stage, in.mb / slices);
        };
        for (std::size_t i = 0; i < m_program.size(); ++i)
            if (m_program[i].kind == InstrKind::Compute && m_program[i].mb >= 0)
                last[keyOf(m_program[i])] = i;
        std::unordered_map<std::uint64_t, std::int32_t> held; // key -> pool buffer
        std::vector<std::int32_t> free;
        for (std::size_t i = 0; i < m_program.size(); ++i) {
            const Instruction& in = m_program[i];
            if (in.kind != InstrKind::Compute || in.mb < 0) continue;
            Step& step = m_out.steps[i];
            const std::uint64_t key = keyOf(in);
            auto it = held.find(key);
            if (it == held.end()) {
                std::int32_t buffer = m_out.keyValueBuffers;
                if (free.empty()) {
                    ++m_out.keyValueBuffers;
                } else {
                    buffer = free.back();
                    free.pop_back();
                }
                it = held.emplace(key, buffer).first;
                step.takeKeysValues = true;
            }
            step.keyValueBuffer = it->second;
            if (last.at(key) == i) {
                step.giveBackKeysValues = true;
                free.push_back(it->second);
                held.erase(it);
            }
        }
    }

    /// Where each receive and forward send is, for the instructions after it.
    void noteOrder(std::size_t i, const Instruction& in) {
        const auto at = std::int32_t(i);
        if (in.kind == InstrKind::Send && in.dir == Direction::F) m_forwardSendOf[bufferOf(in)] = at;
        if (in.kind == InstrKind::Recv) m_receiveOf[bufferOf(in) << 1 | std::uint64_t(in.dir)] = at;
    }

    /// What the instruction waits for (its received input, its stage's sync, the instruction a
    /// Wait names) and its predicted duration; the gradient send buffers a B and its SEND_B share.
    void resolveWaits(std::size_t i, const Instruction& in, Step& step) {
        switch (in.kind) {
        case InstrKind::Compute:
            resolveCompute(i, in, step);
            break;
        case InstrKind::Send:
            if (isGradientSend(in)) resolveGradientSend(in, step);
            break;
        case InstrKind::GradSync:
            m_gradSyncOf[stageKey(in)] = std::int32_t(i);
            break;
        case InstrKind::Optimizer: {
            const auto s = m_gradSyncOf.find(stageKey(in));
            if (s != m_gradSyncOf.end()) step.after.push_back(s->second);
            step.sleepUs = predicted(OpKind::Optimizer, in, -1);
            break;
        }
        case InstrKind::Wait:
            if (in.ref >= 0) step.after.push_back(in.ref);
            break;
        default:
            break;
        }
    }

    void resolveCompute(std::size_t i, const Instruction& in, Step& step) {
        const std::uint64_t bk = bufferOf(in);
        if (in.op == OpKind::F || in.op == OpKind::B) { // W and R take nothing from another rank
            const auto dir = in.op == OpKind::F ? Direction::F : Direction::B;
            const auto r = m_receiveOf.find(bk << 1 | std::uint64_t(dir));
            if (r != m_receiveOf.end()) step.after.push_back(r->second);
        }
        // A recompute writes its forward's output again: not while that output is still being
        // sent from the buffer.
        if (const auto send = m_forwardSendOf.find(bk); in.op == OpKind::R && send != m_forwardSendOf.end())
            step.after.push_back(send->second);
        if (in.op == OpKind::B && m_sentGradients.count(bk)) {
            step.producesSentGradient = true;
            m_gradientProducer[bk] = std::int32_t(i);
            m_mostGradientsHeld = std::max(m_mostGradientsHeld, ++m_gradientsHeld);
        }
        step.sleepUs = predicted(in.op, in, in.mb);
    }

    void resolveGradientSend(const Instruction& in, Step& step) {
        const auto producer = m_gradientProducer.find(bufferOf(in));
        if (producer == m_gradientProducer.end())
            throw std::logic_error("makeRankPlan: " + step.label + " on rank " + std::to_string(m_out.rank) +
                                   " sends a gradient no earlier B of this rank produced");
        step.gradientOf = producer->second;
        --m_gradientsHeld;
    }

    /// The totals, checked against the lowering's count of slots.
    void finish() {
        const int rank = m_out.rank;
        const int planned =
            m_lowered.peakBuffers.empty() ? m_out.slots : m_lowered.peakBuffers.at(std::size_t(rank));
        if (m_out.slots != planned)
            throw std::logic_error("makeRankPlan: rank " + std::to_string(rank) + " needs " +
                                   std::to_string(m_out.slots) +
                                   " activation slots where the lowering counted " + std::to_string(planned));
        for (const LocalStage& s : m_out.stages) {
            if (s.slices.empty() || m_plan.workload != Workload::Model) {
                m_out.slotElements = std::max(m_out.slotElements, activationElements(m_plan, s.shape));
                continue;
            }
            // A slot holds one slice's buffer; its micro-batch's keys and values are apart.
            for (const StageShape& slice : s.slices) {
                m_out.slotElements = std::max(m_out.slotElements, activationElements(m_plan, slice));
                m_out.keyValueElements = std::max(m_out.keyValueElements, keyValueElements(slice));
            }
        }
        m_out.gradientBuffers = m_mostGradientsHeld > 0 ? m_mostGradientsHeld + 1 : 0;
        m_out.sends = postQueues(m_program, InstrKind::Send);
        m_out.receives = postQueues(m_program, InstrKind::Recv);
    }

    const RunPlan& m_plan;
    const Lowered& m_lowered;
    const std::vector<Instruction>& m_program;
    RankPlan m_out;
    std::unordered_map<std::uint64_t, double> m_duration;            // op key -> predicted µs
    std::unordered_map<std::uint64_t, std::int32_t> m_stageOf;       // (pipe, stage) -> index into stages
    std::unordered_map<std::uint64_t, std::int32_t> m_receiveOf;     // (dir, pipe, stage, mb) -> instruction
    std::unordered_map<std::uint64_t, std::int32_t> m_forwardSendOf; // (pipe, stage, mb) -> its SEND_F
    std::unordered_map<std::uint64_t, std::int32_t> m_gradSyncOf;    // (pipe, stage) -> instruction
    std::unordered_map<std::uint64_t, std::int32_t> m_gradientProducer; // (pipe, stage, mb) -> its B
    std::unordered_map<std::uint64_t, std::int32_t> m_sentGradients;    // (pipe, stage, mb) with a SEND_B
    std::int32_t m_gradientsHeld = 0, m_mostGradientsHeld = 0;
};

} // namespace

RankPlan makeRankPlan(const RunPlan& plan, int rank) {
    return RankPlanBuilder(plan, rank).build();
}

} // namespace stagecraft::runtime
