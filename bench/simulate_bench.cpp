// Generate + simulate + metrics for million-op schedules, against a minimal hand-written list
// scheduler for 1F1B (the target: within 3x of it; one variant computes only the makespan, the
// other also records every op's start and end), and the peak heap per op (target: at most 200
// bytes). Run: ./build/bench/simulate_bench
#include "baseline_1f1b.h"
#include "bench_counters.h"
#include "eval/project_simulation.h"
#include "generators/registry.h"
#include "heap_counter.h"
#include "ir/large_array.h"
#include "sim/metrics.h"
#include "sim/simulator.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <vector>

namespace {

using namespace stagecraft;

using bench::startPeakTracking;

/// Peak heap growth since `before` per op.
double peakBytesPerOp(std::size_t before, std::size_t ops) {
    return double(bench::peakHeapSince(before)) / double(ops);
}

void setPerOpCounters(benchmark::State& state, std::size_t ops, double peakPerOp) {
    bench::setOpCounters(state, ops);
    state.counters["peak_bytes_per_op"] = peakPerOp;
}

void simulateSchedule(benchmark::State& state, const char* name, ScheduleParams params) {
    std::size_t ops = 0;
    double peakPerOp = 0;
    for (auto _ : state) {
        const std::size_t before = startPeakTracking();
        const Schedule s = generateSchedule(name, params);
        const OpCosts costs = fullStageCosts(s, 1.0, 1.0, 1.0, 0.1);
        const OpIndex index(s);
        const Timeline t = simulate(s, index, costs);
        const TimeMetrics m = computeTimeMetrics(s, index, t, &costs);
        benchmark::DoNotOptimize(m.makespan);
        ops = s.opCount();
        peakPerOp = peakBytesPerOp(before, ops);
    }
    setPerOpCounters(state, ops, peakPerOp);
}

/// The whole project pipeline on the same schedules: generate, iteration tail, analytic costs,
/// simulation, time metrics, memory curves and throughput (what the CLI and the GUI run).
void predictSchedule(benchmark::State& state, const char* name, ScheduleParams params) {
    Project project = defaultProject();
    project.model.layers = 128; // splits into the 64 or 128 stages of these schedules
    project.parallel = ParallelConfig{{params.pp, params.microbatches, params.chunks}, 1, 1};
    project.cluster.nodes = params.pp / project.cluster.gpusPerNode;
    std::size_t ops = 0;
    double peakPerOp = 0;
    for (auto _ : state) {
        const std::size_t before = startPeakTracking();
        const Prediction p = predict(project, generateSchedule(name, params));
        benchmark::DoNotOptimize(p.report.iterationUs);
        ops = p.schedule.opCount();
        peakPerOp = peakBytesPerOp(before, ops);
    }
    setPerOpCounters(state, ops, peakPerOp);
}

// The baselines: 1F1B with p = 64, m = 8192, T_F = 1, T_B = 2 and a fixed transfer time.
constexpr int kBaseP = 64, kBaseM = 8192;
constexpr bench::BaselineCosts kBaseCosts{1.0, 2.0, 0.1};
constexpr double kBaseF = kBaseCosts.f, kBaseB = kBaseCosts.b;
using bench::oneFOneBOrder;

/// The baseline: makespan and busy time as the only metrics.
void minimalOneFOneB(benchmark::State& state) {
    const int p = kBaseP, m = kBaseM;
    for (auto _ : state) {
        const auto order = oneFOneBOrder(p, m);
        std::vector<double> fEnd(std::size_t(p) * m, -1), bEnd(std::size_t(p) * m, -1);
        const std::vector<double> free =
            bench::runOneFOneB(order, p, m, kBaseCosts, fEnd, bEnd, [](int, std::size_t, double, double) {});
        double makespan = 0, busy = 0;
        for (int r = 0; r < p; ++r) makespan = std::max(makespan, free[r]), busy += m * (kBaseF + kBaseB);
        benchmark::DoNotOptimize(busy / (p * makespan));
    }
    state.counters["ops"] = double(2 * p * m);
}

/// The same scheduler doing more of the work the measured path does: it also records every
/// op's start and end (16 bytes per op, in device order like the timeline's compute events) and
/// derives makespan and busy time from them. Still no transfer events, no idle attribution, no
/// op identities and no dependency resolution for arbitrary schedules.
void minimalOneFOneBWithTimes(benchmark::State& state) {
    const int p = kBaseP, m = kBaseM;
    for (auto _ : state) {
        const auto order = oneFOneBOrder(p, m);
        struct Time {
            double start, end;
        };
        // The same huge-page hint the simulator uses, so that both pay the same for fresh memory.
        std::vector<Time> times;
        reserveLarge(times, std::size_t(2) * p * m); // [r * 2m + position]
        times.resize(std::size_t(2) * p * m);
        std::vector<double> fEnd, bEnd;
        assignLarge(fEnd, std::size_t(p) * m, -1.0);
        assignLarge(bEnd, std::size_t(p) * m, -1.0);
        bench::runOneFOneB(order, p, m, kBaseCosts, fEnd, bEnd,
                           [&](int r, std::size_t position, double start, double end) {
                               times[std::size_t(r) * 2 * m + position] = {start, end};
                           });
        double makespan = 0, busy = 0;
        for (const Time& t : times) makespan = std::max(makespan, t.end), busy += t.end - t.start;
        benchmark::DoNotOptimize(busy / (p * makespan));
    }
    state.counters["ops"] = double(2 * p * m);
}

BENCHMARK(minimalOneFOneB)->Name("baseline/minimal_1f1b_p64_m8192")->Unit(benchmark::kMillisecond);
BENCHMARK(minimalOneFOneBWithTimes)
    ->Name("baseline/minimal_1f1b_times_p64_m8192")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulateSchedule, 1f1b_p64_m8192, "1f1b", ScheduleParams{64, 8192, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulateSchedule, interleaved_p32_m4096_v4, "interleaved", ScheduleParams{32, 4096, 4})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(simulateSchedule, zbv_p64_m2731, "zb-v", ScheduleParams{64, 2731, 1})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(predictSchedule, 1f1b_p64_m8192, "1f1b", ScheduleParams{64, 8192, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(predictSchedule, interleaved_p32_m4096_v4, "interleaved", ScheduleParams{32, 4096, 4})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(predictSchedule, zbv_p64_m2731, "zb-v", ScheduleParams{64, 2731, 1})
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
