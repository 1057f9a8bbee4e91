#pragma once
// The one rule of how data flows between the stages of a pipe: a forward takes its input from the
// forward of the same micro-batch on the previous stage (the activation), a backward takes its
// output gradient from the backward on the next stage (the gradient). Ops of other kinds take
// nothing from another stage. Within a (stage, micro-batch) on its own device, a recompute (R)
// re-runs the forward, the backward takes its activations from the R when the (stage,
// micro-batch) is recomputed and from the F otherwise, and W takes what B leaves. The op index,
// the replay of lowered programs, the calibration of transfer times, the lowering's send/receive
// placement and the trace writer's flow arrows all ask this, so they cannot disagree.

#include "ir/op.h"

#include <optional>

namespace stagecraft {

/// Which way an op's output travels along the pipe: +1 for F (activations to the next stage), -1
/// for B (gradients to the previous one), 0 for kinds that send nothing to another stage.
constexpr int flowStep(OpKind kind) {
    return kind == OpKind::F ? 1 : kind == OpKind::B ? -1 : 0;
}

/// The stage (same pipe and micro-batch) whose op of the same kind feeds op `kind` at `stage`:
/// stage - 1 for F, stage + 1 for B; -1 when there is none (W, sync, optimizer, the first stage's
/// F, the last stage's B, a stage outside [0, stagesPerPipe)).
constexpr int producerStage(OpKind kind, int stage, int stagesPerPipe) {
    const int from = flowStep(kind) != 0 ? stage - flowStep(kind) : -1;
    return stage >= 0 && stage < stagesPerPipe && from >= 0 && from < stagesPerPipe ? from : -1;
}

/// The stage whose op of the same kind op `kind` at `stage` feeds: stage + 1 for F, stage - 1 for
/// B; -1 when there is none (the kinds above, the last stage's F, the first stage's B).
constexpr int consumerStage(OpKind kind, int stage, int stagesPerPipe) {
    const int to = flowStep(kind) != 0 ? stage + flowStep(kind) : -1;
    return stage >= 0 && stage < stagesPerPipe && to >= 0 && to < stagesPerPipe ? to : -1;
}

/// The stage at the other end of a transfer of `kind`'s data: a send goes to the consumer
/// (stage + flowStep), a receive comes from the producer (stage - flowStep). Not bounded: callers
/// that may ask at the pipe's ends check the result.
constexpr int transferPeerStage(OpKind kind, bool send, int stage) {
    return send ? stage + flowStep(kind) : stage - flowStep(kind);
}

/// The kind of the op of the same (pipe, stage, micro-batch) that op `kind` waits for on its own
/// device: F for R, R for B when that (stage, micro-batch) is `recomputed` and F otherwise, B for
/// W; nullopt for F (its input comes from another stage) and for kinds outside the data flow.
constexpr std::optional<OpKind> localProducer(OpKind kind, bool recomputed) {
    switch (kind) {
    case OpKind::R:
        return OpKind::F;
    case OpKind::B:
        return recomputed ? OpKind::R : OpKind::F;
    case OpKind::W:
        return OpKind::B;
    default:
        return std::nullopt;
    }
}

} // namespace stagecraft
