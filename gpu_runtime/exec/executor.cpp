#include "exec/executor.h"

#include "exec/interrupt.h"

#include <algorithm>
#include <csignal>
#include <thread>
#include <unistd.h>

namespace stagecraft::runtime {
namespace {

// The buffer ids a stage's GEMMs are built with, once per stage and slice; compute() puts each
// op's own buffers (its slot, its stage's weights and gradients, its micro-batch's keys and
// values) in their place.
constexpr Buffer kActivations = 0, kWeights = 1, kGrads = 2, kKeysValues = 3;

/// Between two polls of the device: a few yields (a peer sharing the core runs; alone the rank
/// comes straight back), then short sleeps, so that a long wait does not burn a core.
void pollPause(int spins) {
    if (spins < 16)
        std::this_thread::yield();
    else
        std::this_thread::sleep_for(std::chrono::microseconds(20));
}

} // namespace

ExecutionFault::ExecutionFault(const std::string& what, int iteration_, int position_,
                               std::string instruction_, RankIteration partial_)
    : std::runtime_error(what), iteration(iteration_), position(position_),
      instruction(std::move(instruction_)), partial(std::move(partial_)) {}

Executor::Executor(const RunPlan& plan, const RankPlan& rankPlan, DeviceLayer& layer, ExecutorOptions options)
    : m_plan(plan), m_rank(rankPlan), m_layer(layer), m_options(options), m_workload(plan.workload),
      m_splitBackward(plan.prediction.schedule.splitBackward) {
    const StageBuffers templateBuffers{kActivations, kWeights, kGrads, kKeysValues};
    for (const LocalStage& s : m_rank.stages) {
        StageState state;
        // The model workload computes each sequence slice apart; the sleep workload only waits.
        const bool sliced = m_workload == Workload::Model && !s.slices.empty();
        for (const StageShape& shape : sliced ? s.slices : std::vector<StageShape>{s.shape}) {
            SliceWork work;
            work.layout = activationLayout(shape);
            work.activationElements = activationElements(plan, shape);
            if (m_workload == Workload::Model) {
                work.forward = forwardGemms(shape, templateBuffers);
                work.backward = backwardGemms(shape, templateBuffers, !m_splitBackward);
                work.weightGrad = weightGradGemms(shape, templateBuffers);
            }
            state.slices.push_back(std::move(work));
        }
        if (m_workload == Workload::Model) state.optimizer = optimizerStep(s.shape, templateBuffers);
        m_stages.push_back(std::move(state));
    }
    m_requests.assign(m_rank.steps.size(), -1);
    m_gradientOf.assign(m_rank.steps.size(), -1);
    // Sends and receives are posted per peer in program order, the order MPI matches them in
    // (core's rule, which the prediction times: passes/post_queues.h).
    m_sends = m_rank.sends;
    m_receives = m_rank.receives;
    m_nextCompute.assign(m_rank.steps.size(), -1);
    for (std::size_t i = m_rank.steps.size(); i-- > 1;) {
        const InstrKind kind = m_rank.steps[i].instr.kind;
        const bool computes = kind == InstrKind::Compute || kind == InstrKind::Optimizer;
        m_nextCompute[i - 1] = computes ? std::int32_t(i) : m_nextCompute[i];
    }
    m_slotOwner.assign(std::size_t(m_rank.slots), -1);
    m_slotUsers.resize(std::size_t(m_rank.slots));
    // Reserved once: an iteration records into these without allocating.
    for (auto& users : m_slotUsers) users.reserve(8);
    m_current.memory.reserve(2 * std::size_t(m_rank.keys));
}

Executor::~Executor() {
    for (const Buffer b : m_slots) m_layer.release(b);
    for (const Buffer b : m_gradients) m_layer.release(b);
    for (const Buffer b : m_keysValues) m_layer.release(b);
    for (const StageState& s : m_stages) {
        if (s.weights >= 0) m_layer.release(s.weights);
        if (s.grads >= 0) m_layer.release(s.grads);
    }
}

void Executor::allocateStatic() {
    const auto bytes = std::int64_t(m_layer.elementBytes());
    for (std::size_t i = 0; i < m_stages.size(); ++i) {
        // The sleep workload holds no weights: its ops only take their predicted time, and its
        // transfers move the activation-sized buffers of a real run.
        const std::uint64_t elements =
            m_workload == Workload::Model ? weightLayout(m_rank.stages[i].shape).elements : 1;
        m_stages[i].weights = m_layer.allocate(elements);
        m_stages[i].grads = m_layer.allocate(elements);
        m_staticBytes += 2 * std::int64_t(elements) * bytes;
    }
    for (std::int32_t s = 0; s < m_rank.slots; ++s) m_slots.push_back(m_layer.allocate(m_rank.slotElements));
    for (std::int32_t k = 0; k < m_rank.keyValueBuffers; ++k)
        m_keysValues.push_back(m_layer.allocate(m_rank.keyValueElements));
    for (std::int32_t g = 0; g < m_rank.gradientBuffers; ++g)
        m_gradients.push_back(m_layer.allocate(std::max<std::uint64_t>(m_plan.boundaryElements, 1)));
    m_gradientUser.assign(m_gradients.size(), -1);
}

std::uint64_t Executor::plannedSlotBytes() const {
    return (std::uint64_t(m_rank.slots) * m_rank.slotElements +
            std::uint64_t(m_rank.keyValueBuffers) * m_rank.keyValueElements) *
           m_layer.elementBytes();
}

void Executor::injectFault(int iteration, int position, bool hang) {
    m_faultArmed = true;
    m_faultIteration = iteration;
    m_faultPosition = std::size_t(std::max(0, position));
    m_faultHang = hang;
}

std::string Executor::describe(std::size_t index) const {
    const Step& s = m_rank.steps[index];
    const Instruction& in = s.instr;
    if (in.kind == InstrKind::Send) return s.label + " to rank " + std::to_string(in.peer);
    if (in.kind == InstrKind::Recv) return s.label + " from rank " + std::to_string(in.peer);
    return s.label;
}

RankIteration Executor::run(int iteration, Clock::duration timeout) {
    m_iteration = iteration;
    m_layer.reanchor(); // the device is idle: the last iteration finished
    m_current.stamps.clear();
    m_current.memory.clear();
    m_current.iterationStart =
        std::chrono::duration<double, std::micro>(Clock::now() - m_layer.anchorTime()).count();
    const std::uint64_t allocationsBefore = m_layer.allocations();
    std::fill(m_requests.begin(), m_requests.end(), -1);
    std::fill(m_slotOwner.begin(), m_slotOwner.end(), -1);
    for (auto& users : m_slotUsers) users.clear();
    std::fill(m_gradientUser.begin(), m_gradientUser.end(), -1);
    m_nextGradient = 0;
    m_receives.restart();
    m_sends.restart();
    m_deviceDone = 0;
    m_stuck = -1;
    m_openGroup = -1;
    std::size_t index = 0;
    try {
        for (; index < m_rank.steps.size(); ++index) step(index, Clock::now() + timeout);
        if (m_openGroup >= 0) m_layer.endGroup();
        m_openGroup = -1;
        // Instruction by instruction, so that a stuck one is named; then the layer's own drain.
        const Clock::time_point deadline = Clock::now() + timeout;
        awaitDevice(m_rank.steps.size(), deadline);
        m_layer.finish(deadline);
    } catch (const std::exception& e) {
        // What ran before the fault is still worth a trace; stamps of unfinished work stay -1.
        RankIteration partial = std::move(m_current);
        m_current = RankIteration{};
        try {
            m_layer.times(partial.stamps);
        } catch (...) {
        }
        const std::size_t at = m_stuck >= 0 ? std::size_t(m_stuck) : std::min(index, m_rank.steps.size() - 1);
        throw ExecutionFault(e.what(), iteration, int(at), m_rank.steps.empty() ? "" : describe(at),
                             std::move(partial));
    }
    m_layer.times(m_current.stamps);
    m_current.allocations = m_layer.allocations() - allocationsBefore;
    m_current.residentSlotBytes = m_layer.residentBytes(m_slots) + m_layer.residentBytes(m_keysValues);
    RankIteration out = m_current;
    return out;
}

void Executor::checkHealth(std::size_t waitingFor, Clock::time_point deadline) {
    if (interruptRequested()) throwIfInterrupted(describe(waitingFor).c_str());
    const std::string error = m_layer.asyncError();
    if (!error.empty()) throw BackendError(describe(waitingFor) + ": " + error);
    if (Clock::now() > deadline)
        throw DeadlineExceeded(describe(waitingFor) +
                               " did not complete before the deadline (the peer died, hangs, or never posts "
                               "the matching operation)");
}

void Executor::awaitDevice(std::size_t end, Clock::time_point deadline) {
    for (; m_deviceDone < end; ++m_deviceDone) {
        for (int spins = 0; !m_layer.recordDone(std::int32_t(m_deviceDone)); ++spins) {
            m_stuck = std::int32_t(m_deviceDone);
            checkHealth(m_deviceDone, deadline);
            pollPause(spins);
        }
    }
    m_stuck = -1;
}

void Executor::awaitRequest(std::size_t index, Clock::time_point deadline) {
    const Request request = m_requests[index];
    if (request < 0) return;
    m_stuck = std::int32_t(index);
    m_layer.wait(request, deadline);
    m_stuck = -1;
}

bool Executor::takeSlot(const Step& s, Clock::time_point deadline, bool block) {
    const auto slot = std::size_t(s.slot);
    if (m_slotOwner[slot] == s.key) return true;
    std::vector<std::int32_t>& users = m_slotUsers[slot];
    for (const std::int32_t user : users) {
        if (block)
            awaitRequest(std::size_t(user), deadline);
        else if (!m_layer.completed(m_requests[std::size_t(user)]))
            return false;
    }
    users.clear();
    m_layer.reuse(m_slots[slot]);
    m_slotOwner[slot] = s.key;
    return true;
}

void Executor::postReceive(std::size_t index) {
    const Step& s = m_rank.steps[index];
    m_requests[index] = m_layer.recv(transfer(s, index));
    m_slotUsers[std::size_t(s.slot)].push_back(std::int32_t(index));
}

void Executor::postSend(std::size_t index) {
    const Step& s = m_rank.steps[index];
    m_requests[index] = m_layer.send(transfer(s, index));
    if (s.gradientOf >= 0)
        m_gradientUser[std::size_t(m_gradientOf[std::size_t(s.gradientOf)])] = std::int32_t(index);
    else if (s.slot >= 0)
        m_slotUsers[std::size_t(s.slot)].push_back(std::int32_t(index));
}

void Executor::postSends(std::size_t index) {
    postDueSends(
        m_sends, index, [&](std::size_t at) { return m_rank.steps[at].postFrom; },
        [&](std::size_t at) { postSend(at); });
}

void Executor::postReceives(std::size_t index, Clock::time_point deadline) {
    postDueReceives(
        m_receives, index, m_rank.steps[index].instr, m_options.earlyPosts,
        [&](std::size_t at) { return m_rank.steps[at].postFrom; },
        [&](std::size_t at, bool due) {
            if (!takeSlot(m_rank.steps[at], deadline, due)) return false;
            postReceive(at);
            return true;
        });
}

void Executor::step(std::size_t index, Clock::time_point deadline) {
    if (m_faultArmed && m_iteration == m_faultIteration && index == m_faultPosition) {
        if (!m_faultHang) std::raise(SIGKILL);
        for (;;) pause(); // a hung rank: alive, silent
    }
    const Step& s = m_rank.steps[index];
    const Instruction& in = s.instr;
    const bool transfer = in.kind == InstrKind::Send || in.kind == InstrKind::Recv;
    const bool continuesGroup = transfer && m_openGroup >= 0 && in.group == m_openGroup;
    // A group of adjacent transfers is posted together; anything else closes the open group.
    if (m_openGroup >= 0 && !continuesGroup) {
        m_layer.endGroup();
        m_openGroup = -1;
    }
    // The run-ahead window; never inside a group, whose transfers must be posted together.
    // At most runAhead instructions, this one included, are unfinished once it is issued.
    if (!continuesGroup && m_options.runAhead > 0 && index >= std::size_t(m_options.runAhead))
        awaitDevice(index + 1 - std::size_t(m_options.runAhead), deadline);
    if (transfer && in.group >= 0 && in.group != m_openGroup) {
        m_layer.beginGroup();
        m_openGroup = in.group;
    }
    if (s.take) {
        if (!(in.kind == InstrKind::Recv && m_options.earlyPosts)) takeSlot(s, deadline, true);
        m_current.memory.push_back({std::int32_t(index), activationBytes(s)});
    }
    if (s.takeKeysValues) {
        m_layer.reuse(m_keysValues[std::size_t(s.keyValueBuffer)]);
        m_current.memory.push_back({std::int32_t(index), keyValueBytes(s)});
    }
    if (m_options.earlyPosts) postReceives(index, deadline);
    for (const std::int32_t dependency : s.after) awaitRequest(std::size_t(dependency), deadline);

    switch (in.kind) {
    case InstrKind::Compute:
    case InstrKind::Optimizer:
        if (s.producesSentGradient) {
            // The input gradient goes to the next gradient send buffer, once its last send is done.
            const std::size_t g = m_nextGradient++ % m_gradients.size();
            if (m_gradientUser[g] >= 0) awaitRequest(std::size_t(m_gradientUser[g]), deadline);
            m_gradientUser[g] = -1;
            m_layer.reuse(m_gradients[g]);
            m_gradientOf[index] = std::int32_t(g);
        }
        compute(s, index);
        break;
    case InstrKind::Send:
        if (m_options.earlyPosts)
            postSends(index); // posted already, unless its tensor was computed just now
        else
            postSend(index);
        break;
    case InstrKind::Recv:
        if (!m_options.earlyPosts) postReceive(index);
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

    // The slot (and key-value buffer) stays allocated; the memory counters follow the lifetimes.
    if (s.giveBack) m_current.memory.push_back({std::int32_t(index), -activationBytes(s)});
    if (s.giveBackKeysValues) m_current.memory.push_back({std::int32_t(index), -keyValueBytes(s)});
    // A tensor just computed goes out at once (on its consumer's critical path), before progress
    // may spend time copying a received one.
    if (m_options.earlyPosts) postSends(index + 1);
    const bool sendNext =
        index + 1 < m_rank.steps.size() && m_rank.steps[index + 1].instr.kind == InstrKind::Send;
    if (!sendNext || m_options.earlyPosts) m_layer.progress();
}

void Executor::compute(const Step& s, std::size_t index) {
    const Instruction& in = s.instr;
    const StageState& stage = m_stages[std::size_t(s.shape)];
    m_work.record = std::int32_t(index);
    m_work.label = s.label;
    m_work.gemms.clear();
    m_work.axpys.clear();
    m_work.after.clear();
    m_work.next.clear();
    if (const std::int32_t next = m_nextCompute[index]; next >= 0)
        for (const std::int32_t dependency : m_rank.steps[std::size_t(next)].after)
            if (m_requests[std::size_t(dependency)] >= 0)
                m_work.next.push_back(m_requests[std::size_t(dependency)]);
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
    // A recompute runs its stage's forward again on the activations buffer it rebuilds.
    const SliceWork& work = stage.of(in.mb);
    const std::vector<Gemm>& templates = in.op == OpKind::F || in.op == OpKind::R ? work.forward
                                         : in.op == OpKind::B                     ? work.backward
                                                                                  : work.weightGrad;
    const Buffer activations = m_slots[std::size_t(s.slot)];
    const std::int32_t gradient = m_gradientOf[index];
    // The input gradient's region, [T, h] of this micro-batch or slice, ends where the output
    // gradient's begins.
    const std::uint64_t gradientBegin = work.layout.inputGrad;
    const std::uint64_t gradientEnd = work.layout.outputGrad;
    const auto resolve = [&](Operand& o) {
        if (o.buffer == kKeysValues) {
            o.buffer = m_keysValues.at(std::size_t(s.keyValueBuffer));
        } else if (o.buffer == kActivations) {
            // The input gradient a SEND_B sends lives in its gradient send buffer (run_plan.h).
            if (gradient >= 0 && o.offset >= gradientBegin && o.offset < gradientEnd) {
                o.buffer = m_gradients[std::size_t(gradient)];
                o.offset -= gradientBegin;
            } else {
                o.buffer = activations;
            }
        } else {
            o.buffer = o.buffer == kWeights ? stage.weights : stage.grads;
        }
    };
    for (Gemm g : templates) {
        resolve(g.a);
        resolve(g.b);
        resolve(g.c);
        m_work.gemms.push_back(g);
    }
    m_layer.compute(m_work);
}

Operand Executor::tensorOf(const Step& s) const {
    const Instruction& in = s.instr;
    if (s.gradientOf >= 0) return {m_gradients[std::size_t(m_gradientOf[std::size_t(s.gradientOf)])], 0};
    const Buffer b = m_slots[std::size_t(s.slot)];
    if (m_workload == Workload::Sleep) // [activation | gradient] of one boundary each
        return {b, in.kind == InstrKind::Recv && in.dir == Direction::B ? m_plan.boundaryElements : 0};
    const ActivationLayout& a = workOf(s).layout;
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
    // A transfer carries its slice's tokens (both ends name the same slice; a schedule without
    // slices, the whole sequence), as the lowering's bytes say and the prediction prices it.
    const StageShape& shape = m_rank.stages[std::size_t(s.shape)].shapeOf(s.instr.mb);
    t.elements = std::uint64_t(shape.tokens() * shape.hidden);
    return t;
}

std::int64_t Executor::activationBytes(const Step& s) const {
    return std::int64_t(workOf(s).activationElements * m_layer.elementBytes());
}

std::int64_t Executor::keyValueBytes(const Step& s) const {
    const StageShape& shape = m_rank.stages[std::size_t(s.shape)].shapeOf(s.instr.mb);
    return std::int64_t(keyValueElements(shape) * m_layer.elementBytes());
}

} // namespace stagecraft::runtime
