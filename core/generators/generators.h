#pragma once
// Generator functions, one file each. Each `check*` throws ValidationError naming the rule a
// parameter set breaks; each generator assumes its check passed.

#include "generators/registry.h"

namespace stagecraft::gen {

/// The 1F1B skeleton of one device's `total` steps: `warm` forwards, then a forward and a backward in
/// turn, then the remaining backwards. forward(i) and backward(i) push the i-th of each.
template <typename Forward, typename Backward>
void warmupSteadyCooldown(int total, int warm, Forward&& forward, Backward&& backward) {
    for (int i = 0; i < warm; ++i) forward(i);
    for (int i = 0; i < total - warm; ++i) {
        forward(warm + i);
        backward(i);
    }
    for (int i = total - warm; i < total; ++i) backward(i);
}

void checkGpipe(const ScheduleParams&);
Schedule gpipe(const ScheduleParams&);

void check1f1b(const ScheduleParams&);
Schedule oneFOneB(const ScheduleParams&);

/// `schedule` with an R of every (stage, micro-batch) inserted right before its B: full recompute,
/// placed where the backward needs it (recompute.cpp). The schedule must have no F&B or
/// whole-backward slots (std::logic_error otherwise: a generator bug).
Schedule recomputeBeforeBackward(Schedule schedule);
void check1f1bRecompute(const ScheduleParams&);
/// 1F1B with full recompute: 1f1b's order, an R right before every B.
Schedule oneFOneBRecompute(const ScheduleParams&);

/// Refuses more slice units (microbatches x slices) than micro-batch numbers hold (seq1f1b.cpp).
void checkSliceUnits(const ScheduleParams&, std::string_view schedule);
/// Seq1F1B: 1F1B over `slices` sequence slices of every micro-batch (seq1f1b.cpp).
void checkSeq1f1b(const ScheduleParams&);
Schedule seq1f1b(const ScheduleParams&);
/// Seq1F1B-I: interleaved 1F1B over `slices` sequence slices, the authors' code (seq1f1b_interleaved.cpp).
void checkSeq1f1bInterleaved(const ScheduleParams&);
Schedule seq1f1bInterleaved(const ScheduleParams&);
/// TeraPipe: GPipe over `slices` token slices of every micro-batch (terapipe.cpp).
void checkTerapipe(const ScheduleParams&);
Schedule terapipe(const ScheduleParams&);

void checkInterleaved(const ScheduleParams&);
Schedule interleaved(const ScheduleParams&);

void checkBreadthFirst(const ScheduleParams&);
Schedule breadthFirst(const ScheduleParams&);

void checkChimera(const ScheduleParams&);
Schedule chimera(const ScheduleParams&);

void checkBitpipe(const ScheduleParams&);
Schedule bitpipe(const ScheduleParams&);
/// BitPipe as the paper's concatenation figure orders it (bitpipe.cpp).
Schedule bitpipeFigure(const ScheduleParams&);

void checkZbH1(const ScheduleParams&);
Schedule zbH1(const ScheduleParams&);

void checkZbH2(const ScheduleParams&);
Schedule zbH2(const ScheduleParams&);

void checkZbV(const ScheduleParams&);
Schedule zbV(const ScheduleParams&);

/// V-Half and V-Min (zb_v_controllable.cpp): ZB-V's placement at 1/2 and 1/3 of its activations.
void checkZbVHalf(const ScheduleParams&);
Schedule zbVHalf(const ScheduleParams&);
void checkZbVMin(const ScheduleParams&);
Schedule zbVMin(const ScheduleParams&);

void checkDualPipe(const ScheduleParams&);
Schedule dualPipe(const ScheduleParams&);

void checkDualPipeV(const ScheduleParams&);
Schedule dualPipeV(const ScheduleParams&);

void checkV1f1b(const ScheduleParams&);
Schedule v1f1b(const ScheduleParams&);

void checkHanayo(const ScheduleParams&);
Schedule hanayo(const ScheduleParams&);

void checkInterleavedZb(const ScheduleParams&);
Schedule interleavedZb(const ScheduleParams&);

/// Shared rule helpers: throw ValidationError("generator.constraint", field, ...) when broken.
void requireEvenPp(std::string_view schedule, const ScheduleParams&);
void requireMicrobatchesMultipleOfPp(std::string_view schedule, const ScheduleParams&);

} // namespace stagecraft::gen
