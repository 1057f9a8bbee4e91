#pragma once
// How a measured trace is read, as the options every front end takes: stagecraft-cli's overlay,
// calibrate and export, the desktop application's --export and stagecraft-view. One table (names,
// value names, help), one parse into EvaluationInput with core's messages, and one translation
// into the reader's options, so a trace opens with the same iteration, median and placement
// wherever it is opened.

#include "eval/evaluation_input.h"
#include "eval/option_table.h"
#include "io/measured_trace.h"

#include <span>

namespace stagecraft {

/// --iteration N, --median, --placement loop|v, --project-timing.
std::span<const OptionSpec> traceReadOptions();

/// The trace options `given` holds, into `input` (ValidationError "option.value" for a value out
/// of its rule: a negative iteration, a placement other than loop or v).
void readTraceOptions(const OptionValues& given, EvaluationInput& input);

/// The reading `input` asks for: its iteration or the median over iterations, its chunk
/// placement, its SQLite reader.
MeasuredTraceOptions measuredTraceOptions(const EvaluationInput& input);

} // namespace stagecraft
