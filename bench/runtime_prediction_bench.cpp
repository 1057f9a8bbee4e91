// Timing a schedule as torch runs it under a runtime fit (eval/runtime_fit.h): what every
// prediction of a calibrated project costs. The costs are a fit's shape written by hand (4 stages,
// a spread of 64 multipliers), so the benchmark reads no file.
#include "eval/runtime_fit.h"
#include "generators/registry.h"

#include <benchmark/benchmark.h>

using namespace stagecraft;

namespace {

RuntimeCosts fittedLike() {
    RuntimeCosts c;
    c.stages.assign(4, StageCompute{3000, 6500, 3200, 3300});
    c.actions.gap = 13;
    c.actions.postRecv = 190;
    c.actions.postSend = 290;
    c.actions.waitSend = 20;
    c.actions.reduceGrad = 390;
    c.transfer.latency = 1500;
    for (int k = 0; k < 64; ++k) {
        const double m = 0.8 + 0.4 * k / 63.0;
        c.spread.compute.push_back(m);
        c.spread.gap.push_back(m);
        c.spread.post.push_back(m);
    }
    return c;
}

void interleavedUnderFit(benchmark::State& state) {
    const RuntimeCosts costs = fittedLike();
    const Schedule s = generateSchedule("interleaved", {2, int(state.range(0)), 2});
    for (auto _ : state) benchmark::DoNotOptimize(timeScheduleLikeTorch(costs, s, "interleaved"));
    state.counters["ops"] = double(s.opCount());
}

} // namespace

// m = 8: the recorded runs' size (257 draws); m = 8,192: 65,536 ops and m = 65,536: 524,288 ops,
// fewer draws (drawsFor keeps a prediction to a million instruction timings, at least 3 draws).
BENCHMARK(interleavedUnderFit)->Arg(8)->Arg(8192)->Arg(65536)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
