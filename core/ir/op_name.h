#pragma once
// The one name of an op, written and read the same way everywhere: torch's action strings for
// compute ops, and the same grammar for the ops torch's compute actions do not name.

#include "ir/op.h"

#include <optional>
#include <string>
#include <string_view>

namespace stagecraft {

/// Suffixes of the ops that are not torch compute actions: a stage's gradient sync ("2SYNC") and
/// optimizer step ("2OPT").
inline constexpr std::string_view kSyncSuffix = "SYNC";
inline constexpr std::string_view kOptimizerSuffix = "OPT";

/// The one name of an op, in every front end (the app, the viewer, the CLI), every report, search
/// box and error message, schedule file and trace slice: torch's action string of a compute op
/// ("2F0", "2W0", "2I0" for the input-gradient half of a split backward, "2B0" for a whole
/// backward), the same grammar with R for a recompute, which torch has no action for ("2R0"),
/// "<stage>SYNC" / "<stage>OPT" for a gradient sync / optimizer step, and "p1:" in front
/// on the second pipe of a bidirectional schedule ("p1:3SYNC"). `splitBackward` is the schedule's
/// (Schedule::splitBackward, TimelineShape::splitBackward). parseOpName reads it back.
/// With `slices` > 1 (Schedule::sequenceSlices, Seq1F1B) a compute op's unit reads as its
/// micro-batch and slice: unit 7 of two slices is "2F3.1".
std::string opName(const Op& op, bool splitBackward, int slices = 1);

/// True when `text` is written like a recompute: its kind letter (after the pipe prefix and the
/// stage digits) is R, as in "2R0" or "p1:3R2". parseOpName then reads it as one or says why not.
bool isRecomputeName(std::string_view text);

/// Reads an op name as opName writes it (blanks around it ignored). I and B both give OpKind::B;
/// chunk is 0 and a sync's or optimizer's mb -1. On failure returns nullopt and, when `why` is
/// given, sets it to a sentence naming the text and the grammar.
/// A name with a slice ("2F3.1") needs the schedule's `slices` and gives the op its unit
/// (micro-batch x slices + slice); without slices it is refused, naming the schedule's rule.
std::optional<Op> parseOpName(std::string_view text, std::string* why = nullptr, int slices = 1);

} // namespace stagecraft
