// lowerGPipeLoopLikeTorch and lowerOneFOneBLoopLikeTorch: torch 2.15's ScheduleGPipe and
// Schedule1F1B run a fixed loop, not a lowered action list. Each loop is written here as the
// program one rank executes: the order in which it posts receives and sends, computes, and waits
// (torch/distributed/pipelining/schedules.py, `_step_microbatches` of both classes).
#include "error.h"
#include "passes/lower_torch.h"

#include <algorithm>
#include <string>
#include <utility>

namespace stagecraft {

namespace {

/// The shape both loops need: one stage per rank, stage s on rank s, one pipe, whole backwards.
void checkLoopShape(const Schedule& s, const char* loop) {
    auto refuse = [&](const std::string& rule) {
        throw ValidationError("lower.torch", "schedule",
                              "torch's " + std::string(loop) + " loop runs " + rule + "; schedule '" +
                                  s.name + "' does not");
    };
    if (s.pipes != 1 || s.stagesPerPipe != s.devices) refuse("one pipe with one stage per rank");
    for (int stage = 0; stage < s.stagesPerPipe; ++stage)
        if (s.placement[0][std::size_t(stage)].device != stage) refuse("stage s on rank s");
    if (s.splitBackward) refuse("whole backwards (no I/W split)");
    if (s.microbatches < 1) refuse("at least one micro-batch");
}

/// One rank's program as the loop posts, computes and waits; remembers torch's paired batches.
class LoopProgram {
  public:
    LoopProgram(std::vector<Instruction>& ins, int stage, int stages)
        : m_ins(ins), m_stage(stage), m_first(stage == 0), m_last(stage == stages - 1) {}

    bool first() const { return m_first; }
    bool last() const { return m_last; }

    void compute(OpKind op, int mb) {
        Instruction in;
        in.op = op;
        in.stage = m_stage;
        in.mb = mb;
        m_ins.push_back(in);
    }
    /// Posts a send or receive; returns its index for the wait.
    std::int32_t post(InstrKind kind, Direction dir, int mb) {
        Instruction in;
        in.kind = kind;
        in.dir = dir;
        in.stage = m_stage;
        in.mb = mb;
        m_ins.push_back(in);
        return std::int32_t(m_ins.size() - 1);
    }
    void wait(std::int32_t index) {
        if (index < 0) return; // nothing was posted (an empty op list in torch)
        const Instruction& target = m_ins[std::size_t(index)];
        Instruction in;
        in.kind = InstrKind::Wait;
        in.waits = target.kind;
        in.dir = target.dir;
        in.stage = target.stage;
        in.mb = target.mb;
        in.ref = index;
        m_ins.push_back(in);
    }
    /// Posts a receive and waits for it at once (torch: `_wait_batch_p2p(_batch_p2p(recvs))`).
    void receive(Direction dir, int mb) { wait(post(InstrKind::Recv, dir, mb)); }
    /// Posts a paired batch, a send then a receive (batch_isend_irecv in list order), and waits
    /// for both, the send first.
    void pairedBatch(Direction sendDir, int sendMb, Direction recvDir, int recvMb) {
        const std::int32_t send = post(InstrKind::Send, sendDir, sendMb);
        const std::int32_t recv = post(InstrKind::Recv, recvDir, recvMb);
        m_batches.emplace_back(send, recv);
        wait(send);
        wait(recv);
    }
    /// torch's perform_reduce_grad at the end of the step: start the reduction, wait for it.
    void reduceGrad() {
        Instruction in;
        in.kind = InstrKind::GradSync;
        in.op = OpKind::GradSync;
        in.stage = m_stage;
        m_ins.push_back(in);
        wait(std::int32_t(m_ins.size() - 1));
    }
    /// After annotation: only the paired batches are groups; every other transfer is posted alone.
    void setGroups() {
        for (Instruction& in : m_ins) in.group = -1;
        int id = 0;
        for (const auto& [send, recv] : m_batches) {
            m_ins[std::size_t(send)].group = id;
            m_ins[std::size_t(recv)].group = id++;
        }
    }

  private:
    std::vector<Instruction>& m_ins;
    int m_stage;
    bool m_first, m_last;
    std::vector<std::pair<std::int32_t, std::int32_t>> m_batches;
};

/// One GPipe phase on one rank: per micro-batch, the receive posted and waited just before the op,
/// the op, its send posted; the sends waited only after the last op of the phase.
void gpipePhase(LoopProgram& p, OpKind op, int microbatches) {
    const bool forward = op == OpKind::F;
    const Direction dir = forward ? Direction::F : Direction::B;
    const bool receives = forward ? !p.first() : !p.last();
    const bool sends = forward ? !p.last() : !p.first();
    std::vector<std::int32_t> posted;
    for (int i = 0; i < microbatches; ++i) {
        if (receives) p.receive(dir, i);
        p.compute(op, i);
        if (sends) posted.push_back(p.post(InstrKind::Send, dir, i));
    }
    for (std::int32_t send : posted) p.wait(send);
}

/// GPipe on one rank: all forwards, all backwards in ascending order, the gradient reduction.
void gpipeRank(LoopProgram& p, int microbatches) {
    gpipePhase(p, OpKind::F, microbatches);
    gpipePhase(p, OpKind::B, microbatches);
    p.reduceGrad();
}

/// 1F1B on stage `stage` of `stages`: warm-up, steady paired batches, cool-down.
void oneFOneBRank(LoopProgram& p, int stage, int stages, int microbatches) {
    const int warmup = std::min(microbatches, stages - stage);
    int f = 0, b = 0;
    std::int32_t sendWork = -1;
    for (; f < warmup; ++f) {
        if (!p.first()) p.receive(Direction::F, f);
        p.compute(OpKind::F, f);
        if (f > 0) p.wait(sendWork); // the previous forward's send
        // The last warm-up send is held back, to be posted with the first backward's receive.
        sendWork = !p.last() && f != warmup - 1 ? p.post(InstrKind::Send, Direction::F, f) : -1;
    }
    for (;;) {
        // [send F(f-1), recv B(b)]: both exist except on the last stage, where both lists are empty.
        if (!p.last()) p.pairedBatch(Direction::F, f - 1, Direction::B, b);
        p.compute(OpKind::B, b++);
        if (f == microbatches) break;
        // [send B(b-1), recv F(f)]: both exist except on the first stage.
        if (!p.first()) p.pairedBatch(Direction::B, b - 1, Direction::F, f);
        p.compute(OpKind::F, f++);
    }
    sendWork = p.first() ? -1 : p.post(InstrKind::Send, Direction::B, b - 1);
    for (; b < microbatches; ++b) {
        if (!p.last()) p.receive(Direction::B, b);
        p.compute(OpKind::B, b);
        p.wait(sendWork); // the previous backward's send
        sendWork = p.first() ? -1 : p.post(InstrKind::Send, Direction::B, b);
    }
    p.wait(sendWork);
    p.reduceGrad();
}

template <typename Body>
Lowered lowerLoop(const Schedule& s, const LowerOptions& options, Body&& body) {
    Lowered l = loweredShell(s);
    std::vector<LoopProgram> programs;
    programs.reserve(l.programs.size());
    for (int rank = 0; rank < s.devices; ++rank) {
        programs.emplace_back(l.programs[std::size_t(rank)].instructions, rank, s.stagesPerPipe);
        body(programs.back(), rank);
    }
    annotatePrograms(l, options);
    for (LoopProgram& p : programs) p.setGroups();
    return l;
}

} // namespace

Lowered lowerGPipeLoopLikeTorch(const Schedule& s, const LowerOptions& options) {
    checkLoopShape(s, "ScheduleGPipe");
    checkBoundaryBytes(options, s.stagesPerPipe, s.sequenceSlices);
    return lowerLoop(s, options, [&](LoopProgram& p, int) { gpipeRank(p, s.microbatches); });
}

Lowered lowerOneFOneBLoopLikeTorch(const Schedule& s, const LowerOptions& options) {
    checkLoopShape(s, "Schedule1F1B");
    if (s.microbatches < s.stagesPerPipe)
        throw ValidationError("lower.torch", "microbatches",
                              "torch's Schedule1F1B needs at least as many micro-batches as stages (" +
                                  std::to_string(s.microbatches) + " < " + std::to_string(s.stagesPerPipe) +
                                  ")");
    checkBoundaryBytes(options, s.stagesPerPipe, s.sequenceSlices);
    return lowerLoop(s, options, [&](LoopProgram& p, int rank) {
        oneFOneBRank(p, rank, s.stagesPerPipe, s.microbatches);
    });
}

} // namespace stagecraft
