#include "validate/validator.h"

#include "error.h"
#include "ir/op_index.h"
#include "ir/op_name.h"
#include "ir/overlap.h"
#include "sim/list_scheduler.h"

#include <algorithm>
#include <set>

namespace stagecraft {

namespace {

class Collector {
  public:
    explicit Collector(std::size_t limit) : m_limit(limit) {}
    void add(std::string id, int device, int position, std::string message) {
        if (m_problems.size() < m_limit)
            m_problems.push_back({std::move(id), device, position, std::move(message)});
        else
            ++m_dropped;
    }
    bool empty() const { return m_problems.empty(); }
    std::vector<Problem> take() {
        if (m_dropped > 0)
            m_problems.push_back(
                {"schedule.more", -1, -1, std::to_string(m_dropped) + " more problem(s) not shown"});
        return std::move(m_problems);
    }

  private:
    std::size_t m_limit;
    std::size_t m_dropped = 0;
    std::vector<Problem> m_problems;
};

// A valid schedule needs at most 3 op slots per op (see checkSlotBound); the slack keeps small
// hand-written schedules with missing ops reportable op by op.
constexpr std::size_t kSlotsPerOpBound = 4;
constexpr std::size_t kSlotsSlack = std::size_t(1) << 16;

std::string at(int device, int position) {
    return "device " + std::to_string(device) + " position " + std::to_string(position);
}

bool checkShape(const Schedule& s, Collector& out) {
    auto rule = [&](bool ok, const std::string& message) {
        if (!ok) out.add("schedule.shape", -1, -1, message);
        return ok;
    };
    bool ok =
        rule(s.devices >= 1 && s.devices <= kMaxDevices,
             "devices = " + std::to_string(s.devices) + ": must be in 1.." + std::to_string(kMaxDevices));
    ok &= rule(s.pipes == 1 || s.pipes == 2, "pipes = " + std::to_string(s.pipes) + ": must be 1 or 2");
    ok &= rule(s.stagesPerPipe >= 1 && s.stagesPerPipe <= kMaxStagesPerPipe,
               "stages per pipe = " + std::to_string(s.stagesPerPipe) + ": must be in 1.." +
                   std::to_string(kMaxStagesPerPipe));
    ok &= rule(s.microbatches >= 1 && s.microbatches <= kMaxMicrobatches,
               "micro-batches = " + std::to_string(s.microbatches) + ": must be in 1.." +
                   std::to_string(kMaxMicrobatches));
    ok &= rule(s.sequenceSlices >= 1 && s.sequenceSlices <= kMaxSequenceSlices &&
                   s.microbatches % std::max(1, s.sequenceSlices) == 0,
               "sequence slices = " + std::to_string(s.sequenceSlices) + ": must be in 1.." +
                   std::to_string(kMaxSequenceSlices) + " and divide the " + std::to_string(s.microbatches) +
                   " slice units (micro-batches x slices)");
    if (!ok) return false;
    ok &= rule(int(s.order.size()) == s.devices, "the schedule has " + std::to_string(s.order.size()) +
                                                     " device orders for " + std::to_string(s.devices) +
                                                     " devices");
    ok &=
        rule(int(s.placement.size()) == s.pipes, "the placement lists " + std::to_string(s.placement.size()) +
                                                     " pipes, the schedule has " + std::to_string(s.pipes));
    if (!ok) return false;
    std::set<std::pair<int, int>> used; // (device, chunk)
    for (int pipe = 0; pipe < s.pipes; ++pipe) {
        if (!rule(int(s.placement[pipe].size()) == s.stagesPerPipe,
                  "pipe " + std::to_string(pipe) + " places " + std::to_string(s.placement[pipe].size()) +
                      " stages, expected " + std::to_string(s.stagesPerPipe)))
            return false;
        for (int stage = 0; stage < s.stagesPerPipe; ++stage) {
            const StageSlot& slot = s.placement[pipe][stage];
            const std::string what = "stage " + std::to_string(stage) + " of pipe " + std::to_string(pipe);
            ok &= rule(slot.device >= 0 && slot.device < s.devices,
                       what + " is placed on device " + std::to_string(slot.device) + ", outside 0.." +
                           std::to_string(s.devices - 1));
            ok &= rule(slot.chunk >= 0 && slot.chunk < s.chunksPerDevice,
                       what + " is chunk " + std::to_string(slot.chunk) + ", outside 0.." +
                           std::to_string(s.chunksPerDevice - 1));
            ok &= rule(used.insert({slot.device, slot.chunk}).second,
                       what + " is chunk " + std::to_string(slot.chunk) + " of device " +
                           std::to_string(slot.device) + ", which another stage already is");
        }
    }
    return ok;
}

void checkOps(const Schedule& s, Collector& out) {
    for (int d = 0; d < s.devices; ++d) {
        const auto& ops = s.order[d];
        for (int i = 0; i < int(ops.size()); ++i) {
            const Op& op = ops[i];
            if (op.pipe >= s.pipes || op.stage < 0 || op.stage >= s.stagesPerPipe)
                continue; // index reports it
            const StageSlot& slot = s.slot(op.pipe, op.stage);
            if (slot.device != d)
                out.add("schedule.op", d, i,
                        at(d, i) + ": " + opName(op, s.splitBackward, s.sequenceSlices) + " runs on device " +
                            std::to_string(d) + ", but its stage is placed on device " +
                            std::to_string(slot.device));
            else if (slot.chunk != op.chunk)
                out.add("schedule.op", d, i,
                        at(d, i) + ": " + opName(op, s.splitBackward, s.sequenceSlices) + " says chunk " +
                            std::to_string(op.chunk) + ", but its stage is chunk " +
                            std::to_string(slot.chunk));
            if (op.kind == OpKind::W && !s.splitBackward)
                out.add("schedule.op", d, i,
                        at(d, i) + ": " + opName(op, s.splitBackward, s.sequenceSlices) +
                            " is a weight-gradient op, but this schedule does not split the backward");
        }
    }
}

void checkComplete(const Schedule& s, const OpIndex& index, Collector& out) {
    for (const auto& p : index.problems())
        out.add("schedule.duplicate", p.where.device, p.where.index,
                at(p.where.device, p.where.index) + ": " + p.message);
    std::vector<OpKind> kinds{OpKind::F, OpKind::B};
    if (s.splitBackward) kinds.push_back(OpKind::W);
    for (int mb = 0; mb < s.microbatches; ++mb) {
        const int pipe = index.pipeOf(mb);
        if (pipe < 0) {
            out.add("schedule.missing", -1, -1, "micro-batch " + std::to_string(mb) + " has no op at all");
            continue;
        }
        for (int stage = 0; stage < s.stagesPerPipe; ++stage)
            for (OpKind kind : kinds)
                if (!index.find(kind, pipe, stage, mb).valid()) {
                    Op missing{kind, std::uint8_t(pipe), std::uint16_t(s.slot(pipe, stage).chunk), stage, mb};
                    out.add("schedule.missing", s.slot(pipe, stage).device, -1,
                            opName(missing, s.splitBackward, s.sequenceSlices) + " is missing: device " +
                                std::to_string(s.slot(pipe, stage).device) + " must run it exactly once");
                }
    }
}

/// Recomputes (R): each re-runs a forward the schedule has, and a stage's recomputes follow its
/// forwards' order. A runtime keeps the checkpoints of a stage's recomputed forwards in one queue
/// and an R takes the oldest (docs/recompute.md), as the zero-bubble runtime does.
void checkRecompute(const Schedule& s, const OpIndex& index, Collector& out) {
    const std::size_t stages = std::size_t(s.pipes) * s.stagesPerPipe;
    std::vector<std::vector<int>> forwards(stages); // [pipe * S + stage]: recomputed F's mbs, in order
    std::vector<std::size_t> taken(stages, 0);      // R's matched so far per stage
    for (int d = 0; d < s.devices; ++d)
        for (const Op& op : s.order[d])
            if (op.kind == OpKind::F && op.pipe < s.pipes && op.stage >= 0 && op.stage < s.stagesPerPipe &&
                op.mb >= 0 && op.mb < s.microbatches && index.recomputed(op.pipe, op.stage, op.mb))
                forwards[std::size_t(op.pipe) * s.stagesPerPipe + op.stage].push_back(op.mb);
    for (int d = 0; d < s.devices; ++d)
        for (int i = 0; i < int(s.order[d].size()); ++i) {
            const Op& op = s.order[d][i];
            if (op.kind != OpKind::R || op.pipe >= s.pipes || op.stage < 0 || op.stage >= s.stagesPerPipe ||
                op.mb < 0 || op.mb >= s.microbatches)
                continue; // index reports it
            const Op forward{OpKind::F, op.pipe, op.chunk, op.stage, op.mb};
            if (!index.find(OpKind::F, op.pipe, op.stage, op.mb).valid()) {
                out.add("schedule.recompute", d, i,
                        at(d, i) + ": " + opName(op, s.splitBackward, s.sequenceSlices) + " recomputes " +
                            opName(forward, s.splitBackward, s.sequenceSlices) +
                            ", which the schedule does not run: a recompute re-runs a forward");
                continue;
            }
            const std::size_t stage = std::size_t(op.pipe) * s.stagesPerPipe + op.stage;
            const std::size_t next = taken[stage]++;
            if (next < forwards[stage].size() && forwards[stage][next] != op.mb) {
                const Op due{OpKind::R, op.pipe, op.chunk, op.stage, forwards[stage][next]};
                out.add("schedule.recompute", d, i,
                        at(d, i) + ": " + opName(op, s.splitBackward, s.sequenceSlices) + " comes before " +
                            opName(due, s.splitBackward, s.sequenceSlices) +
                            ", whose forward ran first: a stage recomputes its micro-batches in the order "
                            "of their forwards");
                return; // one out of order shifts every later one: report the first
            }
        }
}

/// Gradient syncs: every replica of a stage (the same stage index in each pipe) syncs, once, on
/// the device that holds it; a single-pipe schedule's syncs (data parallel) stand alone.
void checkSyncs(const Schedule& s, Collector& out) {
    std::vector<std::vector<OpRef>> byPipeStage(std::size_t(s.pipes) * s.stagesPerPipe);
    for (int d = 0; d < s.devices; ++d)
        for (int i = 0; i < int(s.order[d].size()); ++i) {
            const Op& op = s.order[d][i];
            if (op.kind != OpKind::GradSync || op.pipe >= s.pipes || op.stage < 0 ||
                op.stage >= s.stagesPerPipe)
                continue;
            byPipeStage[std::size_t(op.pipe) * s.stagesPerPipe + op.stage].push_back({d, i});
        }
    for (int stage = 0; stage < s.stagesPerPipe; ++stage) {
        int syncing = 0;
        for (int pipe = 0; pipe < s.pipes; ++pipe) {
            const auto& refs = byPipeStage[std::size_t(pipe) * s.stagesPerPipe + stage];
            if (refs.size() > 1)
                out.add("schedule.sync", refs[1].device, refs[1].index,
                        at(refs[1].device, refs[1].index) + ": stage " + std::to_string(stage) + " of pipe " +
                            std::to_string(pipe) + " syncs its gradients twice");
            syncing += refs.empty() ? 0 : 1;
        }
        if (syncing == 0 || syncing == s.pipes) continue;
        for (int pipe = 0; pipe < s.pipes; ++pipe)
            if (byPipeStage[std::size_t(pipe) * s.stagesPerPipe + stage].empty())
                out.add(
                    "schedule.sync", s.slot(pipe, stage).device, -1,
                    "stage " + std::to_string(stage) + " of pipe " + std::to_string(pipe) + " (device " +
                        std::to_string(s.slot(pipe, stage).device) +
                        ") has no gradient sync while its replica in the other pipe has one: replicas of a "
                        "stage sync together");
    }
}

/// Overlapped forward-backward slots and whole backwards: each head starts a well-formed slot
/// (ir/overlap.h).
void checkOverlaps(const Schedule& s, const OpIndex& index, Collector& out) {
    if (s.overlapped.empty() && s.wholeBackward.empty()) return;
    for (const auto& p : findSlots(s, index).problems)
        out.add("schedule.overlap", p.where.device, p.where.index, p.message);
}

void checkDynamics(const Schedule& s, const OpIndex& index, Collector& out) {
    const OpCosts zero = fullStageCosts(s, 0, 0, 0);
    const ListScheduleResult run = listSchedule(s, index, zero);
    if (run.complete()) return;
    // Ops ordered before their own dependency on the same device get a precise message.
    bool local = false;
    for (const auto& b : run.blocked)
        if (b.waitingFor.valid() && b.waitingFor.device == b.device) {
            local = true;
            out.add("schedule.order", b.device, b.at.index,
                    at(b.device, b.at.index) + ": " +
                        opName(s.order[b.device][b.at.index], s.splitBackward, s.sequenceSlices) +
                        " runs before its dependency " +
                        opName(s.order[b.device][b.waitingFor.index], s.splitBackward, s.sequenceSlices) +
                        " at position " + std::to_string(b.waitingFor.index) + " of the same device");
        }
    if (local) return;
    std::string message = "deadlock: ";
    if (!run.cycle.empty()) {
        message += "devices wait on each other in a ring: ";
        const char* separator = "";
        for (int d : run.cycle)
            for (const auto& b : run.blocked)
                if (b.device == d) {
                    message += separator;
                    message += b.reason;
                    separator = "; ";
                }
    } else {
        message += run.blocked.front().reason;
    }
    out.add("schedule.deadlock", run.blocked.front().device, run.blocked.front().at.index, message);
}

/// The op index holds 3 slots (F, B, W) per (pipe, stage, micro-batch) of the declared shape. A
/// valid schedule has at least an F and a B per (stage, micro-batch) of the one pipe each
/// micro-batch uses, so at most 3 slots per op; a shape far larger than its ops (a file declaring
/// a million micro-batches and listing ten ops) is refused before anything is allocated for it.
bool checkSlotBound(const Schedule& s, Collector& out) {
    const std::size_t ops = s.opCount();
    const std::size_t slots =
        3 * std::size_t(s.pipes) * std::size_t(s.stagesPerPipe) * std::size_t(s.microbatches);
    const std::size_t bound = kSlotsPerOpBound * ops + kSlotsSlack;
    if (slots <= bound) return true;
    out.add("schedule.shape", -1, -1,
            "pipes = " + std::to_string(s.pipes) + ", stages per pipe = " + std::to_string(s.stagesPerPipe) +
                ", micro-batches = " + std::to_string(s.microbatches) + " declare " + std::to_string(slots) +
                " op slots (3 x pipes x stages x micro-batches) for " + std::to_string(ops) +
                " ops: must be at most " + std::to_string(kSlotsPerOpBound) + " x ops + " +
                std::to_string(kSlotsSlack) + " = " + std::to_string(bound));
    return false;
}

} // namespace

std::vector<Problem> findProblems(const Schedule& schedule, std::size_t limit) {
    Collector out(limit);
    if (!checkShape(schedule, out)) return out.take();
    if (schedule.opCount() > kMaxOps) {
        out.add("schedule.shape", -1, -1,
                std::to_string(schedule.opCount()) + " ops: more than the limit of " +
                    std::to_string(kMaxOps));
        return out.take();
    }
    if (!checkSlotBound(schedule, out)) return out.take();
    checkOps(schedule, out);
    const OpIndex index(schedule);
    checkComplete(schedule, index, out);
    checkRecompute(schedule, index, out);
    checkSyncs(schedule, out);
    checkOverlaps(schedule, index, out);
    if (out.empty()) checkDynamics(schedule, index, out);
    return out.take();
}

void validate(const Schedule& schedule) {
    auto problems = findProblems(schedule, 2);
    if (problems.empty()) return;
    std::string message = "schedule '" + schedule.name + "': " + problems.front().message;
    if (problems.size() > 1) message += " (and more problems)";
    throw ValidationError(problems.front().id, schedule.name, message);
}

} // namespace stagecraft
