// zb-auto's search: the ZB paper's 28.3B costs (Table 9) scaled out to p = 128, m = 1024, where the
// paper's Python heuristic takes about 12 s, and the p = 32, m = 256 size of its largest run. Also the
// V family at those sizes: zb-v searched for the same per-chunk costs (the paper's ZB-V heuristic
// among its candidates) and the controllable-memory zb-v-half and zb-v-min.
#include "generators/registry.h"
#include "generators/zb_auto.h"

#include <benchmark/benchmark.h>

namespace {

using namespace stagecraft;

GenerateRequest request(int p, int m, double limitFactor) {
    GenerateRequest r;
    r.params = {p, m, 1};
    r.stageCosts.assign(std::size_t(p), StageCost{10.402, 10.248, 7.698});
    r.comm = 0.460;
    r.memoryLimit = limitFactor * p;
    // M_W / M_B per token and layer of the 28.3B model: 32h / (34h + 5as), h 6144, a 48, s 1024.
    r.keptForW = 32.0 * 6144 / (34.0 * 6144 + 5.0 * 48 * 1024);
    return r;
}

void zbAuto(benchmark::State& state, int p, int m, double limitFactor) {
    const GenerateRequest r = request(p, m, limitFactor);
    ZbAutoResult result;
    for (auto _ : state) {
        result = zbAutoSchedule(r);
        benchmark::DoNotOptimize(result);
    }
    state.counters["ops"] = double(result.schedule.opCount());
    state.counters["evaluations"] = result.evaluations;
    state.counters["bubble_rate"] = result.bubbleRate;
    state.counters["gap_to_bound"] = (result.span - result.lowerBound) / result.lowerBound;
}

/// A V schedule through the registry; zb-v gets the 28.3B model's costs halved per chunk.
void vSchedule(benchmark::State& state, const char* name, int p, int m) {
    GenerateRequest r;
    r.params = {p, m, 1};
    if (std::string_view(name) == "zb-v") {
        r.stageCosts.assign(std::size_t(2 * p), StageCost{10.402 / 2, 10.248 / 2, 7.698 / 2});
        r.comm = 0.460;
    }
    Schedule s;
    for (auto _ : state) {
        s = generateSchedule(findGenerator(name), r);
        benchmark::DoNotOptimize(s);
    }
    state.counters["ops"] = double(s.opCount());
}

BENCHMARK_CAPTURE(vSchedule, zb_v_p32_m256, "zb-v", 32, 256)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(vSchedule, zb_v_p128_m1024, "zb-v", 128, 1024)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(vSchedule, zb_v_half_p128_m1024, "zb-v-half", 128, 1024)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(vSchedule, zb_v_min_p128_m1024, "zb-v-min", 128, 1024)->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(zbAuto, p32_m256_1p, 32, 256, 1.0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(zbAuto, p32_m256_2p, 32, 256, 2.0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(zbAuto, p128_m1024_1p, 128, 1024, 1.0)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(zbAuto, p128_m1024_2p, 128, 1024, 2.0)->Unit(benchmark::kMillisecond)->Iterations(1);

} // namespace

BENCHMARK_MAIN();
