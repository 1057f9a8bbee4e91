#include "passes/program.h"

#include "ir/stage_flow.h"

#include <algorithm>
#include <numeric>

namespace stagecraft {

Op Lowered::opOf(const Instruction& in) const {
    Op op;
    op.kind = in.op;
    op.pipe = in.pipe;
    op.stage = in.stage;
    op.mb = in.mb;
    op.chunk = std::uint16_t(placement[in.pipe][std::size_t(in.stage)].chunk);
    return op;
}

std::size_t Lowered::instructionCount() const {
    return std::accumulate(programs.begin(), programs.end(), std::size_t(0),
                           [](std::size_t sum, const Program& p) { return sum + p.instructions.size(); });
}

Lowered loweredShell(const Schedule& s) {
    Lowered l;
    l.name = s.name;
    l.ranks = s.devices;
    l.pipes = s.pipes;
    l.stagesPerPipe = s.stagesPerPipe;
    l.microbatches = s.microbatches;
    l.splitBackward = s.splitBackward;
    l.placement = s.placement;
    l.programs.resize(std::size_t(std::max(s.devices, 0)));
    for (std::size_t r = 0; r < l.programs.size(); ++r) l.programs[r].rank = int(r);
    return l;
}

const char* instrKindName(InstrKind kind) {
    switch (kind) {
    case InstrKind::Compute:
        return "COMPUTE";
    case InstrKind::Send:
        return "SEND";
    case InstrKind::Recv:
        return "RECV";
    case InstrKind::GradSync:
        return "GRAD_SYNC";
    case InstrKind::Optimizer:
        return "OPTIMIZER";
    case InstrKind::Wait:
        return "WAIT";
    case InstrKind::Unshard:
        return "UNSHARD";
    case InstrKind::Reshard:
        return "RESHARD";
    }
    return "?";
}

std::string transferName(InstrKind kind, Direction dir) {
    std::string name = kind == InstrKind::Send ? "SEND_" : "RECV_";
    name += dir == Direction::F ? 'F' : 'B';
    return name;
}

std::string stageName(int pipe, int stage) {
    return "s" + std::to_string(stage) + (pipe != 0 ? "'" : "");
}

int peerStage(const Instruction& in) {
    return transferPeerStage(in.dir == Direction::F ? OpKind::F : OpKind::B, in.kind == InstrKind::Send,
                             in.stage);
}

namespace {

/// "s0->s1": the edge in the direction the tensor travels.
std::string edgeName(const Instruction& in) {
    const int other = peerStage(in);
    const int from = in.kind == InstrKind::Send ? in.stage : other;
    const int to = in.kind == InstrKind::Send ? other : in.stage;
    return stageName(in.pipe, from) + "->" + stageName(in.pipe, to);
}

std::string mbName(int mb) {
    return "mb" + std::to_string(mb);
}

} // namespace

std::string describeInstruction(const Lowered& lowered, const Instruction& in) {
    switch (in.kind) {
    case InstrKind::Compute:
        return std::string(opKindName(in.op)) + " " + stageName(in.pipe, in.stage) + " " + mbName(in.mb) +
               " slot " + std::to_string(in.slot);
    case InstrKind::Send:
    case InstrKind::Recv: {
        std::string text = transferName(in.kind, in.dir) + " " + edgeName(in) + " " + mbName(in.mb) +
                           (in.kind == InstrKind::Send ? " to r" : " from r") + std::to_string(in.peer) +
                           " tag " + std::to_string(in.tag) + " slot " + std::to_string(in.slot) + " bytes " +
                           std::to_string(in.bytes);
        if (in.group >= 0) text += " group " + std::to_string(in.group);
        return text;
    }
    case InstrKind::GradSync: {
        std::string text = "GRAD_SYNC " + stageName(in.pipe, in.stage) + " ranks ";
        if (in.ref >= 0 && std::size_t(in.ref) < lowered.collectives.size()) {
            const char* separator = "";
            for (int r : lowered.collectives[std::size_t(in.ref)].ranks) {
                text += separator + ("r" + std::to_string(r));
                separator = ",";
            }
        } else {
            text += "?";
        }
        return text;
    }
    case InstrKind::Optimizer:
    case InstrKind::Unshard:
    case InstrKind::Reshard:
        return std::string(instrKindName(in.kind)) + " " + stageName(in.pipe, in.stage);
    case InstrKind::Wait: {
        std::string what;
        if (in.waits == InstrKind::Send || in.waits == InstrKind::Recv) {
            Instruction target = in;
            target.kind = in.waits;
            what = transferName(in.waits, in.dir) + " " + edgeName(target) + " " + mbName(in.mb);
        } else {
            what = std::string(instrKindName(in.waits)) + " " + stageName(in.pipe, in.stage);
        }
        return "WAIT " + what + " at " + std::to_string(in.ref);
    }
    }
    return "?";
}

} // namespace stagecraft
