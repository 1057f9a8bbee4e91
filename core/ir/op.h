#pragma once
// Identity of one operation of a pipeline schedule.

#include <cstdint>
#include <string>

namespace stagecraft {

/// What an op computes. `B` is the input-gradient part of the backward in schedules that split
/// it (zero-bubble family, `Schedule::splitBackward`), otherwise the whole backward. `W` is the
/// weight-gradient part. `R` recomputes a forward whose activations were not kept: the F of a
/// recomputed (stage, micro-batch) keeps only its stage input, R re-runs that forward before the
/// backward needs the activations (docs/recompute.md). `GradSync` all-reduces one stage replica's
/// gradients with the other replicas (bidirectional schedules' eager sync); `Optimizer` steps a
/// stage's weights. R comes last so the numbers of the older kinds stay what the Python module's
/// OP_KINDS and earlier tools gave them.
enum class OpKind : std::uint8_t { F, B, W, GradSync, Optimizer, R };

inline constexpr int kOpKindCount = 6;

/// One op as placed in a device's order. Micro-batch is -1 for ops that are not per micro-batch
/// (GradSync, Optimizer). `stage` is the stage index inside its pipe; `chunk` is which of the
/// device's model chunks runs it (derived from the placement, stored for fast access).
struct Op {
    OpKind kind = OpKind::F;
    std::uint8_t pipe = 0;
    std::uint16_t chunk = 0;
    std::int32_t stage = 0;
    std::int32_t mb = 0;

    friend bool operator==(const Op&, const Op&) = default;
};

static_assert(sizeof(Op) == 12, "Op is stored once per op of million-op schedules; keep it small");

/// True for ops that carry a micro-batch and follow the data dependencies (F, B, W, R).
constexpr bool isComputeKind(OpKind kind) {
    return kind == OpKind::F || kind == OpKind::B || kind == OpKind::W || kind == OpKind::R;
}

/// Tables that hold the per-micro-batch kinds only (the op index's slots, a chart fold's mix, the
/// replay) index them F, B, W, R: computeSlot gives the index, -1 for GradSync and Optimizer.
inline constexpr int kComputeKindCount = 4;
constexpr int computeSlot(OpKind kind) {
    return kind == OpKind::F ? 0 : kind == OpKind::B ? 1 : kind == OpKind::W ? 2 : kind == OpKind::R ? 3 : -1;
}
/// The kind at compute slot `slot` (0..kComputeKindCount-1): computeSlot's inverse.
constexpr OpKind computeKindAt(int slot) {
    return slot == 0 ? OpKind::F : slot == 1 ? OpKind::B : slot == 2 ? OpKind::W : OpKind::R;
}

/// An op's identity (kind, pipe, stage, micro-batch; not its chunk, which the placement gives)
/// packed into one key: 3 + 8 + 25 + 26 bits, for hash maps that match ops across timelines.
constexpr std::uint64_t opIdentity(const Op& op) {
    return std::uint64_t(op.kind) | std::uint64_t(op.pipe) << 3 |
           std::uint64_t(std::uint32_t(op.stage)) << 11 | std::uint64_t(std::uint32_t(op.mb + 1)) << 36;
}

/// "F", "B", "W", "R", "GradSync", "Optimizer".
const char* opKindName(OpKind kind);

/// The one-letter label charts draw: "F", "B", "W", "R", "S" (gradient sync), "O" (optimizer).
const char* opKindLetter(OpKind kind);

// Ops are named by opName (ir/op_name.h): "2F0", "2R0", "p1:3SYNC", the same everywhere.

} // namespace stagecraft
