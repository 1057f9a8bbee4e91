#pragma once
// Which activation buffer slot each instruction of a lowered program uses, and how early a
// runtime whose posts never block (MPI) may post each transfer. stagecraft-run allocates a rank's
// slots once and hands them from one micro-batch to the next; its executor posts a receive as soon
// as the slot it lands in is free and a send as soon as its tensor is computed. The prediction of
// such a run (passes/run_timing.h) needs the same answer, so it is computed once, here.
//
// The rule (the lowering's buffer lifetimes, passes/annotate.cpp): every compute op and every
// transfer of a micro-batch uses its stage's buffer, except the input gradient a SEND_B sends,
// which is the backward's own output. A (pipe, stage, mb) buffer holds a slot from its first
// instruction to its last; the slot goes back after that instruction's group (the group's
// transfers are in flight together) and the next buffer takes the slot given back last.

#include "passes/program.h"

#include <cstdint>
#include <vector>

namespace stagecraft {

/// One instruction's buffer and posting point.
struct SlotUse {
    std::int32_t key = -1;  ///< the (pipe, stage, mb) buffer (dense index on this rank), -1: none
    std::int32_t slot = -1; ///< the slot that holds the key's buffer, -1: none
    bool take = false;      ///< the key's first instruction: its slot is taken before it
    bool giveBack = false;  ///< the key's last instruction: its slot is given back after it
    /// Recv: the first instruction before which it may be posted (its slot is free, or held by its
    /// own micro-batch, from there on). Send: the instruction after the compute that produced its
    /// tensor on this rank (its own index when none did). -1 for other instructions.
    std::int32_t postFrom = -1;
};

struct RankSlots {
    std::vector<SlotUse> uses; ///< [instruction] of the rank's program
    std::int32_t keys = 0;     ///< (pipe, stage, mb) buffers used over an iteration
    std::int32_t slots = 0;    ///< slots the keys share (the lowering's peakBuffers for this rank)
};

/// True when `in` reads or writes its micro-batch's activation buffer.
bool usesSlot(const Instruction& in);

/// The slots and posting points of `rank`'s program in `lowered`. Linear in its instructions.
RankSlots planSlots(const Lowered& lowered, int rank);

} // namespace stagecraft
