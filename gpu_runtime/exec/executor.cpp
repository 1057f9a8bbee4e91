#include "exec/executor.h"

#include <algorithm>
#include <csignal>
#include <unistd.h>

namespace stagecraft::runtime {
namespace {

constexpr Buffer kActivations = 0, kWeights = 1, kGrads = 2; // placeholders in the GEMM templates

Buffer resolve(Buffer placeholder, Buffer activations, Buffer weights, Buffer grads) {
    return placeholder == kActivations ? activations : placeholder == kWeights ? weights : grads;
}

} // namespace

ExecutionFault::ExecutionFault(const std::string& what, int iteration_, int position_,
                               std::string instruction_, RankIteration partial_)
    : std::runtime_error(what), iteration(iteration_), position(position_),
      instruction(std::move(instruction_)), partial(std::move(partial_)) {}

Executor::Executor(const RunPlan& plan, const RankPlan& rankPlan, DeviceLayer& layer)
    : m_plan(plan), m_rank(rankPlan), m_layer(layer), m_workload(plan.workload),
      m_splitBackward(plan.prediction.schedule.splitBackward) {
    const StageBuffers placeholders{kActivations, kWeights, kGrads};
    for (const LocalStage& s : m_rank.stages) {
        StageState state;
        state.layout = activationLayout(s.shape);
        state.activationElements = state.layout.elements;
        if (m_workload == Workload::Model) {
            state.forward = forwardGemms(s.shape, placeholders);
            state.backward = backwardGemms(s.shape, placeholders, !m_splitBackward);
            state.weightGrad = weightGradGemms(s.shape, placeholders);
            state.optimizer = optimizerStep(s.shape, placeholders);
        }
        m_stages.push_back(std::move(state));
    }
    m_live.assign(std::size_t(m_rank.keys), -1);
    m_requests.assign(m_rank.steps.size(), -1);
}

Executor::~Executor() {
    for (const Buffer b : m_live)
        if (b >= 0) m_layer.release(b);
    for (const StageState& s : m_stages) {
        if (s.weights >= 0) m_layer.release(s.weights);
        if (s.grads >= 0) m_layer.release(s.grads);
    }
}

void Executor::allocateStatic() {
    const auto bytes = std::int64_t(m_layer.elementBytes());
    for (std::size_t i = 0; i < m_stages.size(); ++i) {
        // The sleep workload holds no tensors: its ops only take their predicted time, and its
        // transfers move the activation-sized buffers of a real run.
        const std::uint64_t elements =
            m_workload == Workload::Model ? weightLayout(m_rank.stages[i].shape).elements : 1;
        m_stages[i].weights = m_layer.allocate(elements);
        m_stages[i].grads = m_layer.allocate(elements);
        m_staticBytes += 2 * std::int64_t(elements) * bytes;
    }
}

void Executor::injectFault(int iteration, int position, bool hang) {
    m_faultArmed = true;
    m_faultIteration = iteration;
    m_faultPosition = std::size_t(std::max(0, position));
    m_faultHang = hang;
}

RankIteration Executor::run(int iteration, Clock::duration timeout) {
    m_iteration = iteration;
    m_current = RankIteration{};
    m_current.iterationStart =
        std::chrono::duration<double, std::micro>(Clock::now() - m_layer.anchorTime()).count();
    std::fill(m_requests.begin(), m_requests.end(), -1);
    m_openGroup = -1;
    std::size_t index = 0;
    try {
        for (; index < m_rank.steps.size(); ++index) step(index, Clock::now() + timeout);
        if (m_openGroup >= 0) m_layer.endGroup();
        m_openGroup = -1;
        m_layer.finish(Clock::now() + timeout);
    } catch (const std::exception& e) {
        // What ran before the fault is still worth a trace; stamps of unfinished work stay -1.
        RankIteration partial = std::move(m_current);
        try {
            m_layer.times(partial.stamps);
        } catch (...) {
        }
        const std::size_t at = std::min(index, m_rank.steps.size() - 1);
        throw ExecutionFault(e.what(), iteration, int(at), m_rank.steps.empty() ? "" : m_rank.steps[at].label,
                             std::move(partial));
    }
    m_layer.times(m_current.stamps);
    return std::move(m_current);
}

void Executor::step(std::size_t index, Clock::time_point deadline) {
    if (m_faultArmed && m_iteration == m_faultIteration && index == m_faultPosition) {
        if (!m_faultHang) std::raise(SIGKILL);
        for (;;) pause(); // a hung rank: alive, silent
    }
    const Step& s = m_rank.steps[index];
    const Instruction& in = s.instr;
    const bool transfer = in.kind == InstrKind::Send || in.kind == InstrKind::Recv;
    // A group of adjacent transfers is posted together; anything else closes the open group.
    if (m_openGroup >= 0 && (!transfer || in.group != m_openGroup)) {
        m_layer.endGroup();
        m_openGroup = -1;
    }
    if (transfer && in.group >= 0 && in.group != m_openGroup) {
        m_layer.beginGroup();
        m_openGroup = in.group;
    }
    if (s.allocate) {
        const std::uint64_t elements = m_workload == Workload::Model
                                           ? m_stages[std::size_t(s.shape)].activationElements
                                           : std::max<std::uint64_t>(m_plan.boundaryElements, 1) * 2;
        m_live[std::size_t(s.key)] = m_layer.allocate(elements);
        m_current.memory.push_back({std::int32_t(index), std::int64_t(elements * m_layer.elementBytes())});
    }
    for (const std::int32_t dependency : s.after)
        if (m_requests[std::size_t(dependency)] >= 0)
            m_layer.wait(m_requests[std::size_t(dependency)], deadline);

    switch (in.kind) {
    case InstrKind::Compute:
    case InstrKind::Optimizer:
        compute(s, index);
        break;
    case InstrKind::Send:
        m_requests[index] = m_layer.send(this->transfer(s, index));
        break;
    case InstrKind::Recv:
        m_requests[index] = m_layer.recv(this->transfer(s, index));
        break;
    case InstrKind::GradSync: {
        const StageState& stage = m_stages[std::size_t(s.shape)];
        AllReduce reduce;
        reduce.record = std::int32_t(index);
        reduce.label = s.label;
        reduce.collective = in.ref;
        reduce.data = {stage.grads, 0};
        reduce.elements = m_workload == Workload::Model
                              ? weightLayout(m_rank.stages[std::size_t(s.shape)].shape).elements
                              : 1;
        m_requests[index] = m_layer.allReduce(reduce);
        break;
    }
    case InstrKind::Wait:
    case InstrKind::Unshard:
    case InstrKind::Reshard:
        break; // Wait is done above; FSDP actions move nothing here
    }

    if (s.release) {
        const Buffer b = m_live[std::size_t(s.key)];
        m_live[std::size_t(s.key)] = -1;
        m_layer.release(b);
        const std::uint64_t elements = m_workload == Workload::Model
                                           ? m_stages[std::size_t(s.shape)].activationElements
                                           : std::max<std::uint64_t>(m_plan.boundaryElements, 1) * 2;
        m_current.memory.push_back({std::int32_t(index), -std::int64_t(elements * m_layer.elementBytes())});
    }
    m_layer.progress();
}

void Executor::compute(const Step& s, std::size_t index) {
    const Instruction& in = s.instr;
    const StageState& stage = m_stages[std::size_t(s.shape)];
    m_work.record = std::int32_t(index);
    m_work.label = s.label;
    m_work.gemms.clear();
    m_work.axpys.clear();
    m_work.after.clear();
    if (m_workload == Workload::Sleep) {
        m_work.sleepUs = s.sleepUs;
        m_layer.compute(m_work);
        return;
    }
    m_work.sleepUs = -1;
    if (in.kind == InstrKind::Optimizer) {
        Axpy step = stage.optimizer;
        step.x.buffer = stage.grads;
        step.y.buffer = stage.weights;
        m_work.axpys.push_back(step);
        m_layer.compute(m_work);
        return;
    }
    const std::vector<Gemm>& templates = in.op == OpKind::F   ? stage.forward
                                         : in.op == OpKind::B ? stage.backward
                                                              : stage.weightGrad;
    const Buffer activations = m_live[std::size_t(s.key)];
    for (Gemm g : templates) {
        g.a.buffer = resolve(g.a.buffer, activations, stage.weights, stage.grads);
        g.b.buffer = resolve(g.b.buffer, activations, stage.weights, stage.grads);
        g.c.buffer = resolve(g.c.buffer, activations, stage.weights, stage.grads);
        m_work.gemms.push_back(g);
    }
    m_layer.compute(m_work);
}

Operand Executor::tensorOf(const Step& s) const {
    const Instruction& in = s.instr;
    const Buffer b = m_live[std::size_t(s.key)];
    if (m_workload == Workload::Sleep) // [activation | gradient] of one boundary each
        return {b, in.kind == InstrKind::Recv && in.dir == Direction::B ? m_plan.boundaryElements : 0};
    const ActivationLayout& a = m_stages[std::size_t(s.shape)].layout;
    if (in.kind == InstrKind::Send) return {b, in.dir == Direction::F ? a.output : a.inputGrad};
    return {b, in.dir == Direction::F ? a.input : a.outputGrad};
}

Transfer Executor::transfer(const Step& s, std::size_t index) const {
    Transfer t;
    t.record = std::int32_t(index);
    t.label = s.label;
    t.peer = s.instr.peer;
    t.tag = s.instr.tag;
    t.data = tensorOf(s);
    t.elements = m_plan.boundaryElements;
    return t;
}

} // namespace stagecraft::runtime
