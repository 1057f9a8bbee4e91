// Generation and validation of million-op schedules: both must stay linear in the number of ops.
#include "bench_counters.h"
#include "generators/registry.h"
#include "validate/validator.h"

#include <benchmark/benchmark.h>

namespace {

using stagecraft::ScheduleParams;

void generate(benchmark::State& state, const char* name, ScheduleParams params) {
    std::size_t ops = 0;
    for (auto _ : state) {
        auto schedule = stagecraft::generateSchedule(name, params);
        ops = schedule.opCount();
        benchmark::DoNotOptimize(schedule);
    }
    stagecraft::bench::setOpCounters(state, ops);
}

void generateAndValidate(benchmark::State& state, const char* name, ScheduleParams params) {
    std::size_t ops = 0;
    for (auto _ : state) {
        auto schedule = stagecraft::generateSchedule(name, params);
        stagecraft::validate(schedule);
        ops = schedule.opCount();
    }
    stagecraft::bench::setOpCounters(state, ops);
}

BENCHMARK_CAPTURE(generate, 1f1b_p64_m8192, "1f1b", ScheduleParams{64, 8192, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(generateAndValidate, 1f1b_p64_m8192, "1f1b", ScheduleParams{64, 8192, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(generateAndValidate, interleaved_p32_m4096_v4, "interleaved", ScheduleParams{32, 4096, 4})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(generateAndValidate, zbv_p64_m2731, "zb-v", ScheduleParams{64, 2731, 1})
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
