#pragma once
// The lowered form of a schedule: one program per rank, executed literally by a runtime (one
// process per rank, CUDA + NCCL or host + MPI). A program is a list of instructions: compute ops,
// point-to-point sends and receives (peer, tag, buffer slot, bytes), gradient syncs (with the
// ranks of their collective), the optimizer step, and the waits and FSDP actions torch's
// compute+comms files carry. Plain data; `lower` builds it, the replay checks it, writers print it.
// docs/lowering.md describes the model.

#include "ir/op.h"
#include "ir/schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft {

enum class InstrKind : std::uint8_t {
    Compute,   ///< F, B, W or R of (pipe, stage, mb): `op`
    Send,      ///< post a send of one tensor to `peer`; pairs with the peer's Recv of the same tag
    Recv,      ///< post a receive of one tensor from `peer` into buffer `slot`
    GradSync,  ///< post the stage's gradient all-reduce on the collective lane (non-blocking)
    Optimizer, ///< step the stage's weights; waits for the stage's GradSync on this rank, if any
    Wait,      ///< wait for the earlier instruction `ref` of this rank to complete (torch WAIT_*)
    Unshard,   ///< FSDP all-gather of the stage's weights (torch UNSHARD; local to the pipeline)
    Reshard,   ///< FSDP release of the stage's gathered weights (torch RESHARD)
};

/// What a Send/Recv carries: the activation a forward passes on (F) or the gradient a backward
/// passes back (B).
enum class Direction : std::uint8_t { F, B };

struct Instruction {
    InstrKind kind = InstrKind::Compute;
    Direction dir = Direction::F; ///< Send/Recv, and a Wait on one
    OpKind op = OpKind::F;        ///< Compute: F, B, W or R
    std::uint8_t pipe = 0;
    InstrKind waits = InstrKind::Compute; ///< Wait: the kind of the instruction waited for
    /// Compute B or W of a split program: a half of one whole backward that the runtime runs as
    /// one action (torch's FULL_BACKWARD, the backward of DualPipeV's OVERLAP_F_B), so the two are
    /// timed at the whole backward's cost, not at a split I's and W's (which run slower apart).
    bool wholeBackward = false;
    /// The stage this rank runs that the instruction belongs to: the op's stage, the sending stage
    /// of a Send, the receiving stage of a Recv (torch's action naming: `2SEND_F3`, `3RECV_F3`).
    std::int32_t stage = 0;
    std::int32_t mb = -1;    ///< -1 for GradSync, Optimizer, Unshard, Reshard
    std::int32_t peer = -1;  ///< Send/Recv: the other rank
    std::int32_t slot = -1;  ///< activation buffer of (pipe, stage, mb) on this rank
    std::int32_t group = -1; ///< Send/Recv: consecutive instructions with one id are posted together
    /// GradSync: index into Lowered::collectives. Wait: index in this program of the instruction
    /// waited for.
    std::int32_t ref = -1;
    std::int64_t tag = -1;   ///< Send/Recv: unique per transfer, from (pipe, stage edge, mb, direction)
    std::uint64_t bytes = 0; ///< Send/Recv: size of the tensor

    friend bool operator==(const Instruction&, const Instruction&) = default;
};

struct Program {
    int rank = 0;
    std::vector<Instruction> instructions;
    friend bool operator==(const Program&, const Program&) = default;
};

/// One gradient all-reduce: the replicas of one stage (the same stage index in each pipe) inside
/// this schedule. Data-parallel replicas outside the pipeline join the same collective in a real
/// job; they do not change the order on these ranks.
struct Collective {
    int stage = 0;
    std::vector<int> ranks; ///< ascending
    friend bool operator==(const Collective&, const Collective&) = default;
};

/// One matched transfer: the Send at `sendRank`'s instruction `sendIndex` and the Recv at
/// `recvRank`'s `recvIndex`.
struct Match {
    int sendRank = 0;
    int sendIndex = 0;
    int recvRank = 0;
    int recvIndex = 0;
    friend bool operator==(const Match&, const Match&) = default;
};

struct Lowered {
    std::string name;
    int ranks = 0;
    int pipes = 1;
    int stagesPerPipe = 0;
    int microbatches = 0;
    bool splitBackward = false;
    std::vector<std::vector<StageSlot>> placement; ///< [pipe][stage], as in the schedule
    std::vector<Program> programs;                 ///< [rank]
    /// [pipe * stagesPerPipe + stage]: activation buffers the stage needs (most micro-batches
    /// whose buffer is held at once on its rank).
    std::vector<int> buffers;
    /// [rank]: most activation buffers held at once over all of the rank's stages.
    std::vector<int> peakBuffers;
    std::vector<Collective> collectives;
    /// The one global order in which the lowering matched every transfer; every program posts its
    /// sends and receives in this order. Empty for programs read from a file (the replay checks
    /// those).
    std::vector<Match> matches;

    std::size_t instructionCount() const;
    /// The op a Compute instruction runs, its chunk from the placement.
    Op opOf(const Instruction& in) const;
    friend bool operator==(const Lowered&, const Lowered&) = default;
};

/// A point-to-point Send or Recv.
inline bool isTransfer(const Instruction& in) {
    return in.kind == InstrKind::Send || in.kind == InstrKind::Recv;
}

/// "COMPUTE", "SEND", "RECV", "GRAD_SYNC", "OPTIMIZER", "WAIT", "UNSHARD", "RESHARD".
/// Programs for `schedule`'s shape (name, ranks, pipes, stages, micro-batches, placement), one
/// empty program per rank: what the lowering and the compute+comms reader fill in.
Lowered loweredShell(const Schedule& schedule);

const char* instrKindName(InstrKind kind);

/// torch's name of a transfer instruction: "SEND_F", "RECV_F", "SEND_B", "RECV_B".
std::string transferName(InstrKind kind, Direction dir);

/// "s3" for pipe 0, "s3'" for the second pipe.
std::string stageName(int pipe, int stage);

/// The stage at the other end of a Send/Recv: the next stage for a forward send or a backward
/// receive, the previous one for a forward receive or a backward send.
int peerStage(const Instruction& instruction);

/// One line for people and messages: "F s1 mb3 slot 0", "SEND_F s0->s1 mb3 to r1 tag 7 slot 1
/// bytes 1 group 4", "GRAD_SYNC s0 ranks r0,r3", "WAIT SEND_F s0->s1 mb3 at 5".
std::string describeInstruction(const Lowered& lowered, const Instruction& instruction);

static_assert(sizeof(Instruction) == 48, "one instruction per op and transfer: keep it small");

} // namespace stagecraft
