#pragma once
// The one rule of how data flows between the stages of a pipe: a forward takes its input from the
// forward of the same micro-batch on the previous stage (the activation), a backward takes its
// output gradient from the backward on the next stage (the gradient). Ops of other kinds take
// nothing from another stage. The op index, the replay of lowered programs and the calibration of
// transfer times all ask this, so they cannot disagree.

#include "ir/op.h"

namespace stagecraft {

/// The stage (same pipe and micro-batch) whose op of the same kind feeds op `kind` at `stage`:
/// stage - 1 for F, stage + 1 for B; -1 when there is none (W, sync, optimizer, the first stage's
/// F, the last stage's B, a stage outside [0, stagesPerPipe)).
constexpr int producerStage(OpKind kind, int stage, int stagesPerPipe) {
    const int from = kind == OpKind::F ? stage - 1 : kind == OpKind::B ? stage + 1 : -1;
    return stage >= 0 && stage < stagesPerPipe && from >= 0 && from < stagesPerPipe ? from : -1;
}

} // namespace stagecraft
