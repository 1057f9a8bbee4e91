#include "edit/schedule_editor.h"

#include "error.h"
#include "ir/op_name.h"
#include "ir/overlap.h"
#include "ir/stage_flow.h"
#include "sim/simulator.h"
#include "validate/validator.h"

#include <algorithm>
#include <cstdlib>

namespace stagecraft {

namespace {

constexpr std::int32_t kAbsent = -1;
// Visits of one op after which propagation stops and the cone is re-timed from scratch (a cycle).
constexpr std::int32_t kMaxVisits = 16;
constexpr std::size_t kGaveUp = std::size_t(-1);
constexpr std::int32_t kPending = std::int32_t(1) << 30;
constexpr std::int64_t kMaxShift = std::int64_t(1) << 40;

[[noreturn]] void refuse(const std::string& id, const std::string& field, const std::string& message) {
    throw ValidationError(id, field, message);
}

} // namespace

ScheduleEditor::ScheduleEditor(Schedule schedule, OpCosts costs)
    : m_s(std::move(schedule)), m_costs(std::move(costs)) {
    validate(m_s);
    if (!m_s.overlapped.empty())
        refuse("edit.schedule", m_s.name,
               "schedule '" + m_s.name +
                   "' has overlapped forward-backward slots, which hand edits do not "
                   "keep yet");
    for (int d = 0; d < m_s.devices; ++d)
        for (const Op& op : m_s.order[std::size_t(d)]) {
            if (op.kind == OpKind::R)
                refuse("edit.schedule", m_s.name,
                       "schedule '" + m_s.name + "' holds the recompute " +
                           opName(op, m_s.splitBackward, m_s.sequenceSlices) + " on device " +
                           std::to_string(d) +
                           ": hand edits do not move recompute ops yet; edit the schedule without them");
            if (!isComputeKind(op.kind)) ++m_tailOps;
        }
    const std::size_t slots = std::size_t(m_s.pipes) * std::size_t(m_s.stagesPerPipe);
    for (int k = 0; k < 3; ++k)
        if (m_costs.duration[std::size_t(k)].size() != slots)
            refuse("edit.schedule", "costs",
                   "the cost table holds " + std::to_string(m_costs.duration[std::size_t(k)].size()) + " " +
                       opKindName(OpKind(k)) + " costs for " + std::to_string(slots) + " stages");
    for (int k = 0; k < 3; ++k) {
        const auto& scale = m_costs.sliceScale[std::size_t(k)];
        if (!scale.empty() && (m_costs.slices != m_s.sequenceSlices ||
                               scale.size() != slots * std::size_t(std::max(1, m_s.sequenceSlices))))
            refuse("edit.schedule", "costs",
                   "the cost table's " + std::string(opKindName(OpKind(k))) + " slice costs are for " +
                       std::to_string(m_costs.slices) + " slices of " + std::to_string(scale.size()) +
                       " entries; the schedule has " + std::to_string(m_s.sequenceSlices) + " slices of " +
                       std::to_string(slots) + " stages");
    }
    // A table without sync and optimizer costs times them as free (they may be added by an edit).
    for (const OpKind kind : {OpKind::GradSync, OpKind::Optimizer}) {
        auto& costs = m_costs.duration[std::size_t(kind)];
        if (costs.empty()) costs.assign(slots, 0.0);
        if (costs.size() != slots)
            refuse("edit.schedule", "costs",
                   "the cost table holds " + std::to_string(costs.size()) + " " + opKindName(kind) +
                       " costs for " + std::to_string(slots) + " stages");
    }
    m_whole.assign(slots * std::size_t(m_s.microbatches), 0);
    for (const Op& b : m_s.wholeBackward) setWhole(b, true);
    // Busy time is the same whatever the order, and whether or not the backward is split.
    for (const auto& ops : m_s.order)
        for (const Op& op : ops) m_busy += busyOf(op);
    // Change propagation needs every op to take time, so that a cycle keeps changing times.
    m_positiveCosts = true;
    for (int k = 0; k < 3; ++k)
        for (const double cost : m_costs.duration[std::size_t(k)]) m_positiveCosts &= cost > 0;
    rebuildPositions();
    m_unresolved.assign(std::size_t(m_s.devices), 0);
    retime(std::vector<std::size_t>(std::size_t(m_s.devices), 0));
}

std::size_t ScheduleEditor::slotOf(const Op& op) const {
    if (!isComputeKind(op.kind)) // a sync or optimizer step: one per (pipe, stage), after the op slots
        return computeSlots() +
               (std::size_t(op.kind == OpKind::Optimizer) * std::size_t(m_s.pipes) + op.pipe) *
                   std::size_t(m_s.stagesPerPipe) +
               std::size_t(op.stage);
    return ((std::size_t(op.kind) * std::size_t(m_s.pipes) + op.pipe) * std::size_t(m_s.stagesPerPipe) +
            std::size_t(op.stage)) *
               std::size_t(m_s.microbatches) +
           std::size_t(op.mb);
}

bool ScheduleEditor::isWhole(const Op& b) const {
    return m_whole[(std::size_t(b.pipe) * std::size_t(m_s.stagesPerPipe) + std::size_t(b.stage)) *
                       std::size_t(m_s.microbatches) +
                   std::size_t(b.mb)] != 0;
}

void ScheduleEditor::setWhole(const Op& b, bool whole) {
    m_whole[(std::size_t(b.pipe) * std::size_t(m_s.stagesPerPipe) + std::size_t(b.stage)) *
                std::size_t(m_s.microbatches) +
            std::size_t(b.mb)] = whole ? 1 : 0;
}

void ScheduleEditor::rebuildPositions() {
    m_pos.assign(computeSlots() + 2 * std::size_t(m_s.pipes) * std::size_t(m_s.stagesPerPipe), kAbsent);
    m_times.resize(std::size_t(m_s.devices));
    m_wait.resize(std::size_t(m_s.devices));
    for (std::size_t d = 0; d < m_s.order.size(); ++d) {
        const auto& ops = m_s.order[d];
        for (std::size_t i = 0; i < ops.size(); ++i) m_pos[slotOf(ops[i])] = std::int32_t(i);
        m_times[d].resize(ops.size());
        m_wait[d].assign(ops.size(), 0);
    }
}

std::size_t ScheduleEditor::computeSlots() const {
    return 3 * std::size_t(m_s.pipes) * std::size_t(m_s.stagesPerPipe) * std::size_t(m_s.microbatches);
}

bool ScheduleEditor::isTailKind(OpKind kind) {
    return kind == OpKind::GradSync || kind == OpKind::Optimizer;
}

OpRef ScheduleEditor::find(const Op& op) const {
    if (op.pipe >= m_s.pipes || op.stage < 0 || op.stage >= m_s.stagesPerPipe) return {};
    if (isTailKind(op.kind) ? op.mb != -1 : op.kind == OpKind::R || op.mb < 0 || op.mb >= m_s.microbatches)
        return {};
    const std::int32_t index = m_pos[slotOf(op)];
    if (index == kAbsent) return {};
    const int device = deviceOf(op);
    const Op& there = m_s.order[std::size_t(device)][std::size_t(index)];
    if (there.kind != op.kind || there.pipe != op.pipe || there.stage != op.stage || there.mb != op.mb)
        return {};
    return {device, index};
}

OpRef ScheduleEditor::require(const Op& op, const char* role) const {
    const OpRef ref = find(op);
    if (ref.valid()) return ref;
    const std::string name = opName(op, m_s.splitBackward, m_s.sequenceSlices);
    std::string why = "the schedule has no such op";
    if (op.kind == OpKind::W && !m_s.splitBackward)
        why = "the schedule does not split its backward: split " +
              opName(Op{OpKind::B, op.pipe, 0, op.stage, op.mb}, false, m_s.sequenceSlices) + " first";
    else if (op.kind == OpKind::R)
        why = "hand edits do not move recompute ops";
    else if (isTailKind(op.kind) && op.pipe < m_s.pipes && op.stage >= 0 && op.stage < m_s.stagesPerPipe)
        why = "the order holds no such op (the iteration tail adds it when the order is simulated); "
              "add it with 'add " +
              name + " after OP'";
    else if (op.pipe >= m_s.pipes || op.stage >= m_s.stagesPerPipe || op.mb >= m_s.microbatches)
        why = "the schedule has " + std::to_string(m_s.pipes) + " pipe(s), stages 0.." +
              std::to_string(m_s.stagesPerPipe - 1) + " and micro-batches 0.." +
              std::to_string(m_s.microbatches / std::max(1, m_s.sequenceSlices) - 1) +
              (m_s.sequenceSlices > 1 ? " of " + std::to_string(m_s.sequenceSlices) + " slices each" : "");
    refuse("edit.op", role, std::string(role) + " " + name + ": " + why);
}

/// Both ops of a whole backward move together or not at all: a move that takes one of them
/// away, or lands between them, is refused (split the backward first).
void ScheduleEditor::checkMovable(const Op& op) const {
    if (!m_s.splitBackward) return;
    const Op b{OpKind::B, op.pipe, 0, op.stage, op.mb};
    if ((op.kind == OpKind::B || op.kind == OpKind::W) && isWhole(b))
        refuse("edit.slot", "op",
               opName(op, true, m_s.sequenceSlices) + " runs with " +
                   opName(Op{op.kind == OpKind::B ? OpKind::W : OpKind::B, op.pipe, 0, op.stage, op.mb}, true,
                          m_s.sequenceSlices) +
                   " as one whole backward: split " + opName(b, false, m_s.sequenceSlices) +
                   " before moving either");
}

double ScheduleEditor::durationOf(const Op& op) const {
    // OpCosts::of, so that a sequence slice costs what its position makes it (sim/slice_work.h).
    const double own = m_costs.of(op, m_s.stagesPerPipe);
    if (op.kind == OpKind::B && !m_s.splitBackward)
        return own + m_costs.of(Op{OpKind::W, op.pipe, op.chunk, op.stage, op.mb}, m_s.stagesPerPipe);
    return own;
}

OpCosts ScheduleEditor::costs() const {
    OpCosts out = m_costs;
    if (!m_s.splitBackward) {
        auto& b = out.duration[std::size_t(OpKind::B)];
        const auto& w = m_costs.duration[std::size_t(OpKind::W)];
        // A whole backward of a slice costs its input half at B's slice scale plus its weight half
        // at W's: one scale per slice of the sum.
        auto& bScale = out.sliceScale[std::size_t(OpKind::B)];
        const auto& wScale = m_costs.sliceScale[std::size_t(OpKind::W)];
        if (!bScale.empty() || !wScale.empty()) {
            const std::size_t slices = std::size_t(std::max(1, m_costs.slices));
            std::vector<double> scale(b.size() * slices, 1.0);
            for (std::size_t i = 0; i < b.size(); ++i)
                for (std::size_t q = 0; q < slices; ++q) {
                    const std::size_t at = i * slices + q;
                    const double sum = b[i] + w[i];
                    const double sb = bScale.empty() ? 1.0 : bScale[at],
                                 sw = wScale.empty() ? 1.0 : wScale[at];
                    scale[at] = sum > 0 ? (b[i] * sb + w[i] * sw) / sum : 1.0;
                }
            bScale = std::move(scale);
        }
        for (std::size_t i = 0; i < b.size(); ++i) b[i] += w[i];
        std::fill(out.duration[std::size_t(OpKind::W)].begin(), out.duration[std::size_t(OpKind::W)].end(),
                  0.0);
        out.sliceScale[std::size_t(OpKind::W)].clear();
    }
    return out;
}

Timeline ScheduleEditor::timeline() const {
    return simulate(m_s, costs());
}

double ScheduleEditor::busyOf(const Op& op) const {
    return op.kind == OpKind::GradSync ? 0.0 : durationOf(op); // a collective runs beside the compute
}

double ScheduleEditor::makespan() const {
    if (!runs()) return 0;
    double end = 0;
    if (wholeRetime()) { // a collective may end after its device's last op
        for (const auto& times : m_times)
            for (const OpTime& t : times) end = std::max(end, t.end);
        return end;
    }
    for (const auto& times : m_times)
        if (!times.empty()) end = std::max(end, times.back().end); // a device's last op ends last
    return end;
}

double ScheduleEditor::bubbleRatio() const {
    const double span = makespan();
    return span > 0 ? 1.0 - m_busy / (double(m_s.devices) * span) : 0.0;
}

template <typename Visit>
void ScheduleEditor::forEachProducer(const Op& op, Visit&& visit) const {
    // With sequence slices (OpIndex::resolveDependencies' rule) a slice's forward also waits for the
    // previous slice's on its stage, a slice's backward for the next slice's.
    const int slices = m_s.sequenceSlices;
    switch (op.kind) {
    case OpKind::F:
        if (const int from = producerStage(OpKind::F, op.stage, m_s.stagesPerPipe); from >= 0)
            visit(Op{OpKind::F, op.pipe, 0, from, op.mb});
        if (slices > 1 && op.mb % slices > 0) visit(Op{OpKind::F, op.pipe, 0, op.stage, op.mb - 1});
        break;
    case OpKind::B:
        visit(Op{OpKind::F, op.pipe, 0, op.stage, op.mb});
        if (const int from = producerStage(OpKind::B, op.stage, m_s.stagesPerPipe); from >= 0)
            visit(Op{OpKind::B, op.pipe, 0, from, op.mb});
        if (slices > 1 && op.mb % slices + 1 < slices) visit(Op{OpKind::B, op.pipe, 0, op.stage, op.mb + 1});
        break;
    case OpKind::W:
        visit(Op{OpKind::B, op.pipe, 0, op.stage, op.mb});
        break;
    default:
        break;
    }
}

template <typename Visit>
void ScheduleEditor::forEachConsumer(const Op& op, Visit&& visit) const {
    const int slices = m_s.sequenceSlices;
    switch (op.kind) {
    case OpKind::F:
        if (const int to = consumerStage(OpKind::F, op.stage, m_s.stagesPerPipe); to >= 0)
            visit(Op{OpKind::F, op.pipe, 0, to, op.mb});
        visit(Op{OpKind::B, op.pipe, 0, op.stage, op.mb});
        if (slices > 1 && op.mb % slices + 1 < slices) visit(Op{OpKind::F, op.pipe, 0, op.stage, op.mb + 1});
        break;
    case OpKind::B:
        if (const int to = consumerStage(OpKind::B, op.stage, m_s.stagesPerPipe); to >= 0)
            visit(Op{OpKind::B, op.pipe, 0, to, op.mb});
        if (m_s.splitBackward) visit(Op{OpKind::W, op.pipe, 0, op.stage, op.mb});
        if (slices > 1 && op.mb % slices > 0) visit(Op{OpKind::B, op.pipe, 0, op.stage, op.mb - 1});
        break;
    default:
        break;
    }
}

OpTime ScheduleEditor::timeOf(std::size_t d, std::size_t i) const {
    const Op& op = m_s.order[d][i];
    // A W in a whole backward has the slot's times: its B is right before it.
    if (op.kind == OpKind::W && m_s.splitBackward && isWhole(op)) return m_times[d][i - 1];
    double start = i > 0 ? m_times[d][i - 1].end : 0.0;
    forEachProducer(op, [&](const Op& p) {
        const std::int32_t at = posOf(p);
        if (at == kAbsent) return;
        const int pd = deviceOf(p);
        start = std::max(start, m_times[std::size_t(pd)][std::size_t(at)].end +
                                    m_costs.commBetween(pd, int(d), op.mb));
    });
    double duration = durationOf(op);
    if (op.kind == OpKind::B && m_s.splitBackward && isWhole(op))
        duration += durationOf(Op{OpKind::W, op.pipe, 0, op.stage, op.mb});
    return OpTime{start, start + duration};
}

double ScheduleEditor::inputsReadyAt(int device, std::size_t index) const {
    double at = 0;
    const Op& op = m_s.order[std::size_t(device)][index];
    forEachProducer(op, [&](const Op& p) {
        const std::int32_t pos = posOf(p);
        if (pos == kAbsent) return;
        const int pd = deviceOf(p);
        at = std::max(at, m_times[std::size_t(pd)][std::size_t(pos)].end +
                              m_costs.commBetween(pd, device, op.mb));
    });
    return at;
}

std::size_t ScheduleEditor::update(const std::vector<OpRef>& seeds, std::vector<std::size_t> from) {
    if (wholeRetime()) return retimeWhole();
    if (runs() && m_positiveCosts) {
        const std::size_t pops = propagate(seeds);
        if (pops != kGaveUp) return pops;
    }
    return retime(std::move(from));
}

/// Change propagation: recompute the seeds, and the successors (next op of the device, data
/// consumers) of every op whose times changed, in the order of their times before the edit (a
/// topological order of every edge the edit did not add), each as often as a producer changes.
/// At the end every op's times satisfy the list scheduler's rule, so they equal a full run. An
/// edit that made a cycle never settles, since with positive costs every round around the cycle
/// pushes its times later: after kMaxVisits visits of one op the caller re-times the cone with
/// Kahn's algorithm, which names the cycle.
std::size_t ScheduleEditor::propagate(const std::vector<OpRef>& seeds) {
    struct Entry {
        double key;
        std::int32_t device, index;
        bool operator<(const Entry& o) const { // a min-heap on (key, index)
            return key != o.key ? key > o.key : index > o.index;
        }
    };
    std::vector<Entry> heap;
    std::vector<OpRef> touched;
    // m_wait holds, per op, whether it waits in the heap (kPending) and how often it was visited.
    auto push = [&](std::size_t d, std::size_t i) {
        if (i >= m_s.order[d].size() || (m_wait[d][i] & kPending) != 0) return;
        if (m_wait[d][i] == 0) touched.push_back({std::int32_t(d), std::int32_t(i)});
        m_wait[d][i] |= kPending;
        // Never before the op that now precedes it on its device.
        const double key = std::max(m_times[d][i].start, i > 0 ? m_times[d][i - 1].start : 0.0);
        heap.push_back({key, std::int32_t(d), std::int32_t(i)});
        std::push_heap(heap.begin(), heap.end());
    };
    for (const OpRef& seed : seeds) push(std::size_t(seed.device), std::size_t(seed.index));
    std::size_t pops = 0;
    bool gaveUp = false;
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end());
        const Entry e = heap.back();
        heap.pop_back();
        const std::size_t d = std::size_t(e.device), i = std::size_t(e.index);
        ++pops;
        m_wait[d][i] = (m_wait[d][i] & ~kPending) + 1;
        if (m_wait[d][i] > kMaxVisits) {
            gaveUp = true;
            break;
        }
        const OpTime now = timeOf(d, i);
        OpTime& stored = m_times[d][i];
        if (now.start == stored.start && now.end == stored.end) continue;
        stored = now;
        push(d, i + 1);
        forEachConsumer(m_s.order[d][i], [&](const Op& c) {
            const std::int32_t at = posOf(c);
            if (at != kAbsent) push(std::size_t(deviceOf(c)), std::size_t(at));
        });
    }
    for (const OpRef& ref : touched) m_wait[std::size_t(ref.device)][std::size_t(ref.index)] = 0;
    return gaveUp ? kGaveUp : pops;
}

std::size_t ScheduleEditor::retime(std::vector<std::size_t> from) {
    if (wholeRetime()) return retimeWhole();
    const std::size_t devices = std::size_t(m_s.devices);
    // Ops a broken order left untimed are re-timed too: the edit may have mended it.
    for (std::size_t d = 0; d < devices; ++d) from[d] = std::min(from[d], m_unresolved[d]);
    // The cone: for each device a suffix of its order, from cone[d] on. Lowering a device's start
    // scans the newly covered ops for consumers on other devices; every op is scanned once.
    std::vector<std::size_t> cone(devices);
    for (std::size_t d = 0; d < devices; ++d) cone[d] = m_s.order[d].size();
    struct Range {
        std::size_t device, begin, end;
    };
    std::vector<Range> pending;
    auto extend = [&](std::size_t d, std::size_t at) {
        if (at >= cone[d]) return;
        pending.push_back({d, at, cone[d]});
        cone[d] = at;
    };
    for (std::size_t d = 0; d < devices; ++d) extend(d, from[d]);
    while (!pending.empty()) {
        const Range r = pending.back();
        pending.pop_back();
        for (std::size_t i = r.begin; i < r.end; ++i)
            forEachConsumer(m_s.order[r.device][i], [&](const Op& c) {
                const std::int32_t at = posOf(c);
                if (at != kAbsent) extend(std::size_t(deviceOf(c)), std::size_t(at));
            });
    }
    // Count each cone op's producers inside the cone (its device predecessor and its data
    // producers); those with none are ready.
    std::vector<OpRef> ready;
    std::size_t total = 0;
    for (std::size_t d = 0; d < devices; ++d) {
        const auto& ops = m_s.order[d];
        total += ops.size() - cone[d];
        for (std::size_t i = cone[d]; i < ops.size(); ++i) {
            std::int32_t waits = i > cone[d] ? 1 : 0;
            forEachProducer(ops[i], [&](const Op& p) {
                const std::int32_t at = posOf(p);
                if (at != kAbsent && std::size_t(at) >= cone[std::size_t(deviceOf(p))]) ++waits;
            });
            m_wait[d][i] = waits;
            if (waits == 0) ready.push_back({std::int32_t(d), std::int32_t(i)});
        }
    }
    std::vector<std::size_t> done = cone; // [device] next op to time: the timed ops are a prefix
    std::size_t timed = 0;
    auto release = [&](std::size_t d, std::size_t i) {
        if (i >= m_s.order[d].size() || i < cone[d]) return;
        if (--m_wait[d][i] == 0) ready.push_back({std::int32_t(d), std::int32_t(i)});
    };
    while (!ready.empty()) {
        const OpRef ref = ready.back();
        ready.pop_back();
        const std::size_t d = std::size_t(ref.device), i = std::size_t(ref.index);
        const Op& op = m_s.order[d][i];
        m_times[d][i] = timeOf(d, i);
        ++timed;
        done[d] = i + 1;
        release(d, i + 1);
        forEachConsumer(op, [&](const Op& c) {
            const std::int32_t at = posOf(c);
            if (at != kAbsent) release(std::size_t(deviceOf(c)), std::size_t(at));
        });
    }
    for (std::size_t d = 0; d < devices; ++d) {
        m_unresolved[d] = done[d] < m_s.order[d].size() ? done[d] : m_s.order[d].size();
        for (std::size_t i = done[d]; i < m_s.order[d].size(); ++i) m_times[d][i] = OpTime{};
    }
    if (timed == total)
        m_broken = EditBreak{};
    else
        describeBreak(done);
    return total;
}

/// The cycle Kahn's algorithm could not enter: on every device with untimed ops, the first of
/// them waits for a producer that is itself untimed. One waiting for an op of its own device is
/// a broken dependency; otherwise the waits form a ring of devices.
void ScheduleEditor::describeBreak(const std::vector<std::size_t>& done) {
    std::vector<BlockedDevice> blocked;
    for (std::size_t d = 0; d < done.size(); ++d) {
        if (done[d] >= m_s.order[d].size()) continue;
        BlockedDevice b;
        b.device = int(d);
        b.at = {std::int32_t(d), std::int32_t(done[d])};
        forEachProducer(m_s.order[d][done[d]], [&](const Op& p) {
            const std::int32_t at = posOf(p);
            const int pd = deviceOf(p);
            if (b.waitingFor.valid() || at == kAbsent || std::size_t(at) < done[std::size_t(pd)]) return;
            b.waitingFor = {std::int32_t(pd), at};
        });
        b.reason = waitReason(m_s, b.at, b.waitingFor);
        blocked.push_back(std::move(b));
    }
    setBreak(blocked, findWaitRing(blocked, done.size()));
}

/// Names what stops the order: a device whose op waits for an op later on that device, else the
/// ring of devices `ring` waiting on each other, else (a collective some replica never posts)
/// every stop.
void ScheduleEditor::setBreak(const std::vector<BlockedDevice>& blocked, const std::vector<int>& ring) {
    const BlockedDevice* local = nullptr;
    m_broken = EditBreak{};
    for (const BlockedDevice& b : blocked)
        if (b.waitingFor.valid() && b.waitingFor.device == b.device) {
            local = &b;
            break;
        }
    if (local) {
        const Op& op = m_s.order[std::size_t(local->device)][std::size_t(local->at.index)];
        const Op& dep = m_s.order[std::size_t(local->device)][std::size_t(local->waitingFor.index)];
        m_broken.kind = BreakKind::Dependency;
        m_broken.waits = {*local};
        m_broken.message =
            "device " + std::to_string(local->device) + " position " + std::to_string(local->at.index) +
            ": " + opName(op, m_s.splitBackward, m_s.sequenceSlices) + " runs before its dependency " +
            opName(dep, m_s.splitBackward, m_s.sequenceSlices) + " at position " +
            std::to_string(local->waitingFor.index) + " of the same device";
        return;
    }
    m_broken.kind = BreakKind::Deadlock;
    const char* separator = "";
    if (ring.empty()) {
        m_broken.message = "the order cannot run: ";
        for (const BlockedDevice& b : blocked) {
            m_broken.waits.push_back(b);
            m_broken.message += separator + b.reason;
            separator = "; ";
        }
        return;
    }
    m_broken.message = "deadlock: devices wait on each other in a ring: ";
    for (const int d : ring)
        for (const BlockedDevice& b : blocked)
            if (b.device == d) {
                m_broken.waits.push_back(b);
                m_broken.message += separator + b.reason;
                separator = "; ";
            }
}

/// An order with gradient syncs or optimizer steps, re-timed whole by the list scheduler: its
/// collectives start in the order the scheduler reaches them, which no local rule reproduces.
std::size_t ScheduleEditor::retimeWhole() {
    const OpIndex index(m_s);
    const ListScheduleResult run = listSchedule(m_s, index, costs());
    std::size_t total = 0;
    for (std::size_t d = 0; d < m_s.order.size(); ++d) {
        const std::size_t count = m_s.order[d].size();
        total += count;
        m_unresolved[d] = count;
        for (std::size_t i = 0; i < count; ++i) {
            m_times[d][i] = run.time(int(d), int(i));
            if (m_times[d][i].end < 0 && m_unresolved[d] == count) m_unresolved[d] = i;
        }
    }
    if (run.complete())
        m_broken = EditBreak{};
    else
        setBreak(run.blocked, run.cycle);
    return total;
}

EditOutcome ScheduleEditor::moveTo(const Op& op, std::int64_t index, Edit inverse) {
    const OpRef at = require(op, "op");
    checkMovable(op);
    auto& ops = m_s.order[std::size_t(at.device)];
    const std::size_t i = std::size_t(at.index);
    if (index < 0 || std::size_t(index) >= ops.size())
        refuse("edit.target", "index",
               opName(op, m_s.splitBackward, m_s.sequenceSlices) + " cannot go to index " +
                   std::to_string(index) + ": device " + std::to_string(at.device) + " runs " +
                   std::to_string(ops.size()) + " ops (indices 0.." + std::to_string(ops.size() - 1) + ")");
    const std::size_t j = std::size_t(index);
    // Without the op, the new place is between ops j-1 and j: not inside a whole backward.
    if (m_s.splitBackward && j > 0 && j + 1 < ops.size()) {
        const Op& before = ops[j - 1 + (j > i ? 1 : 0)];
        if (before.kind == OpKind::B && isWhole(before))
            refuse("edit.slot", "index",
                   opName(op, true, m_s.sequenceSlices) + " cannot go between " +
                       opName(before, true, m_s.sequenceSlices) +
                       " and its W: they run as "
                       "one whole backward (split " +
                       opName(before, false, m_s.sequenceSlices) + " first)");
    }
    auto& times = m_times[std::size_t(at.device)];
    if (j > i) {
        std::rotate(ops.begin() + std::ptrdiff_t(i), ops.begin() + std::ptrdiff_t(i + 1),
                    ops.begin() + std::ptrdiff_t(j + 1));
        std::rotate(times.begin() + std::ptrdiff_t(i), times.begin() + std::ptrdiff_t(i + 1),
                    times.begin() + std::ptrdiff_t(j + 1));
    } else if (j < i) {
        std::rotate(ops.begin() + std::ptrdiff_t(j), ops.begin() + std::ptrdiff_t(i),
                    ops.begin() + std::ptrdiff_t(i + 1));
        std::rotate(times.begin() + std::ptrdiff_t(j), times.begin() + std::ptrdiff_t(i),
                    times.begin() + std::ptrdiff_t(i + 1));
    }
    const std::size_t lo = std::min(i, j), hi = std::max(i, j);
    for (std::size_t k = lo; k <= hi; ++k) posOf(ops[k]) = std::int32_t(k);
    std::vector<std::size_t> from(std::size_t(m_s.devices), std::size_t(-1));
    from[std::size_t(at.device)] = lo;
    // Every op of the stretch has a new neighbour before it, and so has the op after it.
    std::vector<OpRef> seeds;
    for (std::size_t k = lo; k <= hi + 1 && k < ops.size(); ++k)
        seeds.push_back({at.device, std::int32_t(k)});
    EditOutcome out{{inverse}, 0, {}};
    out.retimed = update(seeds, std::move(from));
    return out;
}

void ScheduleEditor::toSplitForm() {
    // Every backward becomes a whole backward, its W right after it: the same times, the other form.
    m_s.splitBackward = true;
    m_s.wholeBackward.clear();
    for (auto& ops : m_s.order) {
        std::vector<Op> split;
        split.reserve(ops.size() + ops.size() / 2 + 1);
        for (const Op& op : ops) {
            split.push_back(op);
            if (op.kind != OpKind::B) continue;
            Op w = op;
            w.kind = OpKind::W;
            split.push_back(w);
            m_s.wholeBackward.push_back(op);
            setWhole(op, true);
        }
        ops = std::move(split);
    }
    sortSlotHeads(m_s);
    rebuildPositions();
    // Each W of a whole backward spans its slot, as its B does: timed once, like the rest.
    std::fill(m_unresolved.begin(), m_unresolved.end(), 0);
    retime(std::vector<std::size_t>(std::size_t(m_s.devices), 0));
}

void ScheduleEditor::toWholeForm() {
    m_s.splitBackward = false;
    m_s.wholeBackward.clear();
    for (std::size_t d = 0; d < m_s.order.size(); ++d) {
        auto& ops = m_s.order[d];
        auto& times = m_times[d];
        std::size_t kept = 0, unresolved = ops.size();
        for (std::size_t i = 0; i < ops.size(); ++i) {
            if (i == m_unresolved[d]) unresolved = kept;
            if (ops[i].kind == OpKind::W) continue;
            ops[kept] = ops[i];
            times[kept] = times[i];
            ++kept;
        }
        ops.resize(kept);
        times.resize(kept);
        m_unresolved[d] = std::min(unresolved, kept);
    }
    std::fill(m_whole.begin(), m_whole.end(), 0);
    rebuildPositions();
}

EditOutcome ScheduleEditor::split(const Edit& edit) {
    if (!edit.all) {
        if (edit.op.kind != OpKind::B)
            refuse("edit.op", "op",
                   "split " + opName(edit.op, m_s.splitBackward, m_s.sequenceSlices) +
                       ": only a backward (B) splits");
        require(edit.op, "op");
        if (m_s.splitBackward && !isWhole(edit.op))
            refuse("edit.slot", "op",
                   "split " + opName(edit.op, false, m_s.sequenceSlices) + ": its backward is split already");
    }
    const bool wasWhole = !m_s.splitBackward;
    // Without the switch of form the whole schedule is not re-timed: a whole backward's times
    // are the same in both forms. The switch itself re-times everything once.
    if (wasWhole) toSplitForm();
    std::vector<Op> split;
    if (edit.all)
        split = m_s.wholeBackward;
    else
        split.push_back(m_s.order[std::size_t(deviceOf(edit.op))][std::size_t(posOf(edit.op))]);
    std::vector<std::size_t> from(std::size_t(m_s.devices), std::size_t(-1));
    std::vector<OpRef> seeds;
    for (const Op& b : split) {
        setWhole(b, false);
        const std::size_t d = std::size_t(deviceOf(b));
        from[d] = std::min(from[d], std::size_t(posOf(b)));
        seeds.push_back({std::int32_t(d), posOf(b)});
    }
    auto& heads = m_s.wholeBackward;
    heads.erase(std::remove_if(heads.begin(), heads.end(), [&](const Op& b) { return !isWhole(b); }),
                heads.end());
    EditOutcome out{{}, 0, {}};
    if (wasWhole && edit.all) {
        out.inverse.push_back(Edit{EditKind::Merge, {}, true, MoveAnchor::Index, {}, 0});
    } else {
        for (const Op& b : split)
            out.inverse.push_back(Edit{EditKind::Merge, b, false, MoveAnchor::Index, {}, 0});
    }
    out.retimed = update(seeds, std::move(from));
    return out;
}

EditOutcome ScheduleEditor::merge(const Edit& edit) {
    if (!m_s.splitBackward)
        refuse("edit.slot", "op", "merge: the schedule does not split its backward; nothing to merge");
    std::vector<Op> merged;
    auto check = [&](const Op& b) {
        const OpRef at = find(b);
        const auto& ops = m_s.order[std::size_t(at.device)];
        const Op w{OpKind::W, b.pipe, 0, b.stage, b.mb};
        if (std::size_t(at.index) + 1 >= ops.size() ||
            !(ops[std::size_t(at.index) + 1].kind == OpKind::W &&
              ops[std::size_t(at.index) + 1].stage == b.stage &&
              ops[std::size_t(at.index) + 1].pipe == b.pipe && ops[std::size_t(at.index) + 1].mb == b.mb))
            refuse("edit.slot", "op",
                   "merge " + opName(b, false, m_s.sequenceSlices) +
                       ": its W must come right after it (device " + std::to_string(at.device) + " runs " +
                       opName(w, true, m_s.sequenceSlices) + " at position " + std::to_string(posOf(w)) +
                       "); move it there first");
        merged.push_back(ops[std::size_t(at.index)]);
    };
    if (edit.all) {
        for (const auto& ops : m_s.order)
            for (const Op& op : ops)
                if (op.kind == OpKind::B && !isWhole(op)) check(op);
    } else {
        if (edit.op.kind != OpKind::B)
            refuse("edit.op", "op",
                   "merge " + opName(edit.op, true, m_s.sequenceSlices) +
                       ": name the backward (B or I) to merge");
        require(edit.op, "op");
        if (isWhole(edit.op))
            refuse("edit.slot", "op",
                   "merge " + opName(edit.op, false, m_s.sequenceSlices) +
                       ": it is one whole backward already");
        check(edit.op);
    }
    std::vector<std::size_t> from(std::size_t(m_s.devices), std::size_t(-1));
    std::vector<OpRef> seeds;
    for (const Op& b : merged) {
        setWhole(b, true);
        m_s.wholeBackward.push_back(b);
        const std::size_t d = std::size_t(deviceOf(b));
        from[d] = std::min(from[d], std::size_t(posOf(b)));
        seeds.push_back({std::int32_t(d), posOf(b)});
    }
    sortSlotHeads(m_s);
    EditOutcome out{{}, 0, {}};
    for (const Op& b : merged)
        out.inverse.push_back(Edit{EditKind::Split, b, false, MoveAnchor::Index, {}, 0});
    out.retimed = update(seeds, std::move(from));
    // Every backward whole again: the schedule goes back to the form that does not split (what a
    // split of an unsplit schedule started from, so undo restores it exactly).
    if (std::all_of(m_s.order.begin(), m_s.order.end(), [&](const std::vector<Op>& ops) {
            return std::all_of(ops.begin(), ops.end(),
                               [&](const Op& op) { return op.kind != OpKind::B || isWhole(op); });
        }))
        toWholeForm();
    return out;
}

EditOutcome ScheduleEditor::apply(const Edit& edit) {
    EditOutcome out = dispatch(edit);
    out.broken = m_broken;
    return out;
}

EditOutcome ScheduleEditor::dispatch(const Edit& edit) {
    switch (edit.kind) {
    case EditKind::Move: {
        const OpRef at = require(edit.op, "op");
        if (edit.anchor == MoveAnchor::Index)
            return moveTo(edit.op, edit.index,
                          Edit{EditKind::Move, edit.op, false, MoveAnchor::Index, {}, at.index});
        const OpRef other = require(edit.other, edit.anchor == MoveAnchor::After ? "after" : "before");
        if (other.device != at.device)
            refuse("edit.target", edit.anchor == MoveAnchor::After ? "after" : "before",
                   opName(edit.op, m_s.splitBackward, m_s.sequenceSlices) + " runs on device " +
                       std::to_string(at.device) + ", " +
                       opName(edit.other, m_s.splitBackward, m_s.sequenceSlices) + " on device " +
                       std::to_string(other.device) + ": an op moves within its own device's order");
        if (other == at)
            refuse("edit.target", "after",
                   opName(edit.op, m_s.splitBackward, m_s.sequenceSlices) +
                       " cannot move relative to itself");
        std::int64_t k = other.index > at.index ? other.index - 1 : other.index; // index without the op
        const std::int64_t j = edit.anchor == MoveAnchor::After ? k + 1 : k;
        return moveTo(edit.op, j, Edit{EditKind::Move, edit.op, false, MoveAnchor::Index, {}, at.index});
    }
    case EditKind::Shift: {
        const OpRef at = require(edit.op, "op");
        // Orders hold fewer than 2^28 ops: a larger shift is out of range whatever its size.
        const std::int64_t by = std::clamp<std::int64_t>(edit.index, -kMaxShift, kMaxShift);
        return moveTo(edit.op, at.index + by,
                      Edit{EditKind::Shift, edit.op, false, MoveAnchor::Index, {}, -by});
    }
    case EditKind::Swap: {
        const OpRef at = require(edit.op, "op");
        const OpRef other = require(edit.other, "with");
        if (other.device != at.device || std::abs(other.index - at.index) != 1)
            refuse("edit.target", "with",
                   "swap " + opName(edit.op, m_s.splitBackward, m_s.sequenceSlices) + " " +
                       opName(edit.other, m_s.splitBackward, m_s.sequenceSlices) + ": they are at device " +
                       std::to_string(at.device) + " position " + std::to_string(at.index) + " and device " +
                       std::to_string(other.device) + " position " + std::to_string(other.index) +
                       "; a swap trades two neighbours of one device");
        checkMovable(edit.other);
        return moveTo(edit.op, other.index, edit);
    }
    case EditKind::Split:
        return split(edit);
    case EditKind::Merge:
        return merge(edit);
    case EditKind::Pipe:
        return repipe(edit);
    case EditKind::Add:
        return addTail(edit);
    case EditKind::Drop:
        return dropTail(edit);
    }
    refuse("edit.op", "edit", "unknown edit kind");
}

std::vector<EditOutcome> ScheduleEditor::applyAll(const std::vector<Edit>& edits) {
    std::vector<EditOutcome> out;
    out.reserve(edits.size());
    for (const Edit& edit : edits) out.push_back(apply(edit));
    return out;
}

} // namespace stagecraft
