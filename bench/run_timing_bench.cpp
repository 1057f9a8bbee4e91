// Timing a schedule as stagecraft-run executes it (passes/run_timing.h, costs.timing =
// stagecraft-run) against the list scheduler it refines: the lowering, then one pass over the
// programs. 1F1B on 32 devices with a transfer time, up to a million ops.
#include "generators/registry.h"
#include "passes/lower.h"
#include "passes/run_timing.h"
#include "sim/simulator.h"

#include <benchmark/benchmark.h>

using namespace stagecraft;

namespace {

Schedule oneFOneB(benchmark::State& state) {
    return generateSchedule("1f1b", {32, int(state.range(0)), 1});
}

void listScheduler(benchmark::State& state) {
    const Schedule s = oneFOneB(state);
    const OpCosts costs = fullStageCosts(s, 1000, 1000, 1000, 100);
    for (auto _ : state) benchmark::DoNotOptimize(simulate(s, costs));
    state.counters["ops"] = double(s.opCount());
}

void lowering(benchmark::State& state) {
    const Schedule s = oneFOneB(state);
    for (auto _ : state) benchmark::DoNotOptimize(lower(s));
    state.counters["ops"] = double(s.opCount());
}

/// The timing of the lowered programs alone (predict() lowers once, then times).
void stagecraftRunTiming(benchmark::State& state) {
    const Schedule s = oneFOneB(state);
    const OpCosts costs = fullStageCosts(s, 1000, 1000, 1000, 100);
    const Timeline listed = simulate(s, costs);
    const Lowered programs = lower(s);
    for (auto _ : state) benchmark::DoNotOptimize(timeLikeStagecraftRun(s, programs, listed, costs));
    state.counters["ops"] = double(s.opCount());
}

} // namespace

// m = 256: 16,384 ops; m = 16,384: 1,048,576 ops.
BENCHMARK(listScheduler)->Arg(256)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(lowering)->Arg(256)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(stagecraftRunTiming)->Arg(256)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
