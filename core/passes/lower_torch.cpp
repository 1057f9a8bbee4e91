// lowerLikeTorch: a schedule's compute order as torch's actions, torch's passes over them
// (passes/lower_torch_passes.cpp, lower_torch_budget.cpp), and the result as Stagecraft programs.
#include "passes/lower_torch.h"

#include "error.h"
#include "ir/op_index.h"
#include "ir/op_name.h"
#include "ir/overlap.h"
#include "passes/torch_actions.h"
#include "validate/validator.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace stagecraft {

using namespace torchlower;

namespace {

[[noreturn]] void refuse(const std::string& field, const std::string& message) {
    throw ValidationError("lower.torch", field, message);
}

/// The compute order of every rank as torch's actions: an overlapped slot is one OVERLAP_F_B, a
/// whole backward of a split schedule one B, a split backward's halves I and W.
RankActions computeActions(const Schedule& s) {
    const ScheduleSlots slots =
        s.overlapped.empty() && s.wholeBackward.empty() ? ScheduleSlots{} : findSlots(s, OpIndex(s));
    RankActions out(std::size_t(s.devices));
    for (std::size_t d = 0; d < s.order.size(); ++d) {
        const std::vector<Op>& ops = s.order[d];
        const std::vector<Slot> none;
        const std::vector<Slot>& deviceSlots = d < slots.of.size() ? slots.of[d] : none;
        std::size_t nextSlot = 0;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const Op& op = ops[i];
            if (op.kind == OpKind::R)
                refuse("rank " + std::to_string(d),
                       "'" + opName(op, s.splitBackward, s.sequenceSlices) +
                           "' is a recompute: torch's runtime has no recompute action (its stages "
                           "checkpoint inside their modules); lower it with Stagecraft's lowering");
            if (!isComputeKind(op.kind))
                refuse(
                    "rank " + std::to_string(d),
                    "'" + opName(op, s.splitBackward, s.sequenceSlices) +
                        "' is not a compute op: torch's runtime lowers a compute-only "
                        "order and adds its own REDUCE_GRAD (lower the schedule without its iteration tail)");
            if (nextSlot < deviceSlots.size() && std::size_t(deviceSlots[nextSlot].position) == i) {
                const Slot& slot = deviceSlots[nextSlot++];
                if (slot.overlapped)
                    out[d].push_back({Act::Overlap, op.stage, op.mb, ops[i + 1].stage, ops[i + 1].mb});
                else
                    out[d].push_back({Act::B, op.stage, op.mb});
                i += std::size_t(slot.length) - 1;
                continue;
            }
            const Act type = op.kind == OpKind::F   ? Act::F
                             : op.kind == OpKind::W ? Act::W
                             : s.splitBackward      ? Act::I
                                                    : Act::B;
            out[d].push_back({type, op.stage, op.mb});
        }
    }
    return out;
}

void checkOptions(const Schedule& s, const TorchLowerOptions& o) {
    if (o.maxActiveStages < 1)
        refuse("maxActiveStages", "maxActiveStages = " + std::to_string(o.maxActiveStages) +
                                      ": torch's max_active_stages is a positive integer");
    if (!o.unshardLookahead.empty() && int(o.unshardLookahead.size()) != s.devices)
        refuse("unshardLookahead", "unshardLookahead has " + std::to_string(o.unshardLookahead.size()) +
                                       " entries: torch's unshard_lookahead tuple has one per rank (" +
                                       std::to_string(s.devices) + ")");
    for (std::size_t r = 0; r < o.unshardLookahead.size(); ++r)
        if (o.unshardLookahead[r] < 1 || o.unshardLookahead[r] > o.maxActiveStages)
            refuse("unshardLookahead",
                   "unshardLookahead[" + std::to_string(r) + "] = " + std::to_string(o.unshardLookahead[r]) +
                       " is outside 1..maxActiveStages (" + std::to_string(o.maxActiveStages) + ")");
    if (o.maxOutstandingSends < -1)
        refuse("maxOutstandingSends", "maxOutstandingSends = " + std::to_string(o.maxOutstandingSends) +
                                          ": torch's max_outstanding_sends is a non-negative integer "
                                          "(-1 stands for None)");
}

Instruction computeInstruction(OpKind kind, int stage, int mb) {
    Instruction in;
    in.op = kind;
    in.stage = stage;
    in.mb = mb;
    return in;
}

/// Each rank's actions as instructions, in the encoding the compute+comms reader gives torch's
/// files (io/torch_comms_csv.h): waits point at the instruction they wait for.
Lowered toLowered(const Schedule& s, const RankActions& actions, const LowerOptions& options) {
    Lowered l = loweredShell(s);
    const std::size_t cells = std::size_t(s.stagesPerPipe) * std::size_t(s.microbatches);
    for (std::size_t r = 0; r < actions.size(); ++r) {
        auto& ins = l.programs[r].instructions;
        std::vector<std::int32_t> sendAt[2]{std::vector<std::int32_t>(cells, -1),
                                            std::vector<std::int32_t>(cells, -1)};
        std::vector<std::int32_t> syncAt(std::size_t(s.stagesPerPipe), -1);
        auto cell = [&](int stage, int mb) {
            return std::size_t(stage) * std::size_t(s.microbatches) + std::size_t(mb);
        };
        auto wholeBackward = [&](int stage, int mb) {
            ins.push_back(computeInstruction(OpKind::B, stage, mb));
            if (!s.splitBackward) return;
            ins.back().wholeBackward = true;
            ins.push_back(computeInstruction(OpKind::W, stage, mb));
            ins.back().wholeBackward = true;
        };
        for (const Action& a : actions[r]) {
            Instruction in;
            in.stage = a.stage;
            switch (a.type) {
            case Act::F:
                ins.push_back(computeInstruction(OpKind::F, a.stage, a.mb));
                continue;
            case Act::I:
                ins.push_back(computeInstruction(OpKind::B, a.stage, a.mb));
                continue;
            case Act::B:
                wholeBackward(a.stage, a.mb);
                continue;
            case Act::W:
                ins.push_back(computeInstruction(OpKind::W, a.stage, a.mb));
                continue;
            case Act::Overlap:
                ins.push_back(computeInstruction(OpKind::F, a.stage, a.mb));
                wholeBackward(a.stage2, a.mb2);
                continue;
            case Act::SendF:
            case Act::SendB:
            case Act::RecvF:
            case Act::RecvB:
                in.kind = isSend(a.type) ? InstrKind::Send : InstrKind::Recv;
                in.dir = a.type == Act::SendF || a.type == Act::RecvF ? Direction::F : Direction::B;
                in.mb = a.mb;
                if (in.kind == InstrKind::Send)
                    sendAt[int(in.dir)][cell(a.stage, a.mb)] = std::int32_t(ins.size());
                break;
            case Act::WaitSendF:
            case Act::WaitSendB:
                in.kind = InstrKind::Wait;
                in.waits = InstrKind::Send;
                in.dir = a.type == Act::WaitSendF ? Direction::F : Direction::B;
                in.mb = a.mb;
                in.ref = sendAt[int(in.dir)][cell(a.stage, a.mb)];
                break;
            case Act::Unshard:
            case Act::Reshard:
                in.kind = a.type == Act::Unshard ? InstrKind::Unshard : InstrKind::Reshard;
                break;
            case Act::ReduceGrad:
                in.kind = InstrKind::GradSync;
                in.op = OpKind::GradSync;
                syncAt[std::size_t(a.stage)] = std::int32_t(ins.size());
                break;
            case Act::WaitReduceGrad:
                in.kind = InstrKind::Wait;
                in.waits = InstrKind::GradSync;
                in.ref = syncAt[std::size_t(a.stage)];
                break;
            }
            ins.push_back(in);
        }
    }
    annotatePrograms(l, options);
    // torch posts every SEND_*/RECV_* action alone (its own `_batch_p2p` call), adjacent or not.
    for (Program& p : l.programs)
        for (Instruction& in : p.instructions) in.group = -1;
    return l;
}

} // namespace

const char* torchRuntimeName(TorchRuntime runtime) {
    switch (runtime) {
    case TorchRuntime::ScheduleRuntime:
        return "runtime";
    case TorchRuntime::GPipeLoop:
        return "gpipe-loop";
    case TorchRuntime::OneFOneBLoop:
        return "1f1b-loop";
    }
    return "?";
}

TorchRuntime torchRuntimeOf(std::string_view registryName) {
    std::string name(registryName);
    for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (name == "gpipe") return TorchRuntime::GPipeLoop;
    if (name == "1f1b") return TorchRuntime::OneFOneBLoop;
    return TorchRuntime::ScheduleRuntime;
}

std::vector<int> autoUnshardLookahead(int ranks, int maxActiveStages) {
    std::vector<int> out;
    out.reserve(std::size_t(std::max(0, ranks)));
    for (int r = 0; r < ranks; ++r) out.push_back(std::min(r + 2, maxActiveStages));
    return out;
}

Lowered lowerLikeTorch(const Schedule& schedule, const TorchLowerOptions& options) {
    validate(schedule);
    checkBoundaryBytes(options.lower, schedule.stagesPerPipe, schedule.sequenceSlices);
    if (schedule.pipes != 1)
        refuse("pipes", "schedule '" + schedule.name + "' runs " + std::to_string(schedule.pipes) +
                            " pipes: torch's actions name a stage, not a pipe, so torch cannot run it");
    checkOptions(schedule, options);
    Topology topology;
    topology.ranks = schedule.devices;
    topology.microbatches = schedule.microbatches;
    for (const StageSlot& slot : schedule.placement[0]) topology.rankOfStage.push_back(slot.device);

    RankActions actions = computeActions(schedule);
    for (std::size_t r = 0; r < actions.size(); ++r) {
        const int lookahead =
            options.unshardLookahead.empty() ? options.maxActiveStages : options.unshardLookahead[r];
        actions[r] = addReduceGrad(addUnshardReshard(actions[r], options.maxActiveStages, lookahead),
                                   topology, options.deferReduceGradWait);
    }
    actions = addWaitSend(addSendRecv(actions, topology), topology);
    if (options.deferRecv) actions = deferRecvs(actions, topology);
    if (options.maxOutstandingSends >= 0)
        actions = addWaitSendBudget(actions, topology, options.maxOutstandingSends);
    return toLowered(schedule, actions, options.lower);
}

Lowered lowerLikeTorch(const Schedule& schedule, TorchRuntime runtime, const TorchLowerOptions& options) {
    switch (runtime) {
    case TorchRuntime::GPipeLoop:
        return lowerGPipeLoopLikeTorch(schedule, options.lower);
    case TorchRuntime::OneFOneBLoop:
        return lowerOneFOneBLoopLikeTorch(schedule, options.lower);
    case TorchRuntime::ScheduleRuntime:
        break;
    }
    return lowerLikeTorch(schedule, options);
}

} // namespace stagecraft
