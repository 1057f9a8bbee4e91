#include "eval/trace_read_options.h"

#include <array>
#include <climits>

namespace stagecraft {

namespace {

using enum OptionArity;

constexpr std::array kTraceReadOptions{
    OptionSpec{"iteration", "", 0, One, "N",
               "Which iteration of a trace of several (args.iteration of its slices); the last by default"},
    OptionSpec{"median", "", 0, Flag, "",
               "Traces of other tools: every op at its median over the iterations the trace holds"},
    OptionSpec{"placement", "", 0, One, "loop|v",
               "Ranges named F{mb}.{chunk}: how (rank, chunk) gives the stage: loop (default) or v"},
    OptionSpec{"project-timing", "", 0, Flag, "",
               "A stagecraft-run trace: predict with the project's costs.timing, not as the run predicted "
               "itself"},
};

const OptionSpec& spec(std::string_view name) {
    return findOption(kTraceReadOptions, name);
}

} // namespace

std::span<const OptionSpec> traceReadOptions() {
    return kTraceReadOptions;
}

void readTraceOptions(const OptionValues& given, EvaluationInput& input) {
    if (const auto iteration = given.one(spec("iteration")))
        input.traceIteration = integerOption(spec("iteration"), *iteration, 0, INT_MAX);
    input.traceMedian = given.has("median");
    input.projectTiming = given.has("project-timing");
    if (const auto placement = given.one(spec("placement"))) {
        static constexpr std::array<std::string_view, 2> kPlacements{"loop", "v"};
        input.chunkPlacement = choiceOption(spec("placement"), *placement, kPlacements) == "v"
                                   ? ChunkPlacement::V
                                   : ChunkPlacement::Loop;
    }
}

MeasuredTraceOptions measuredTraceOptions(const EvaluationInput& input) {
    MeasuredTraceOptions options;
    options.run.iteration = input.traceIteration;
    options.run.pick = input.traceMedian ? IterationPick::Median : IterationPick::One;
    options.run.placement = input.chunkPlacement;
    options.sqlite = input.sqliteReader;
    return options;
}

} // namespace stagecraft
