// Generate + simulate + metrics for million-op schedules, against a minimal hand-written list
// scheduler for 1F1B (the target: within 3x of it; one variant computes only the makespan, the
// other also records every op's start and end), and the peak heap per op (target: at most 200
// bytes). Run: ./build/bench/simulate_bench
#include "generators/registry.h"
#include "ir/large_array.h"
#include "sim/metrics.h"
#include "sim/project_simulation.h"
#include "sim/simulator.h"

#include <algorithm>
#include <atomic>
#include <benchmark/benchmark.h>
#include <cstdlib>
#include <malloc.h>
#include <new>
#include <vector>

// Heap accounting for the bytes-per-op counter.
namespace {
std::atomic<std::size_t> g_current{0};
std::atomic<std::size_t> g_peak{0};
} // namespace

void* operator new(std::size_t size) {
    void* p = std::malloc(size);
    if (!p) throw std::bad_alloc();
    const std::size_t now = g_current += malloc_usable_size(p);
    std::size_t peak = g_peak.load();
    while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
    }
    return p;
}
void operator delete(void* p) noexcept {
    if (!p) return;
    g_current -= malloc_usable_size(p);
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    operator delete(p);
}

namespace {

using namespace stagecraft;

void simulateSchedule(benchmark::State& state, const char* name, ScheduleParams params) {
    std::size_t ops = 0;
    double peakPerOp = 0;
    for (auto _ : state) {
        const std::size_t before = g_current.load();
        g_peak = before;
        const Schedule s = generateSchedule(name, params);
        const OpCosts costs = fullStageCosts(s, 1.0, 1.0, 1.0, 0.1);
        const OpIndex index(s);
        const Timeline t = simulate(s, index, costs);
        const TimeMetrics m = computeTimeMetrics(s, index, t, &costs);
        benchmark::DoNotOptimize(m.makespan);
        ops = s.opCount();
        peakPerOp = double(g_peak.load() - before) / double(ops);
    }
    state.counters["ops"] = double(ops);
    state.counters["peak_bytes_per_op"] = peakPerOp;
    state.counters["ns_per_op"] = benchmark::Counter(
        double(ops) * double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// The whole project pipeline on the same schedules: generate, iteration tail, analytic costs,
/// simulation, time metrics, memory curves and throughput (what the CLI and the GUI run).
void predictSchedule(benchmark::State& state, const char* name, ScheduleParams params) {
    Project project = defaultProject();
    project.model.layers = 128; // splits into the 64 or 128 stages of these schedules
    project.parallel = ParallelConfig{params.pp, 1, 1, params.microbatches, params.chunks};
    project.cluster.nodes = params.pp / project.cluster.gpusPerNode;
    std::size_t ops = 0;
    double peakPerOp = 0;
    for (auto _ : state) {
        const std::size_t before = g_current.load();
        g_peak = before;
        const Prediction p = predict(project, generateSchedule(name, params));
        benchmark::DoNotOptimize(p.report.iterationUs);
        ops = p.schedule.opCount();
        peakPerOp = double(g_peak.load() - before) / double(ops);
    }
    state.counters["ops"] = double(ops);
    state.counters["peak_bytes_per_op"] = peakPerOp;
    state.counters["ns_per_op"] = benchmark::Counter(
        double(ops) * double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// The baseline: 1F1B order in flat arrays and a worklist list scheduler specialised to it
/// (F after the previous stage's F, B after the next stage's B and its own F), with makespan and
/// busy time as the only metrics.
void minimalOneFOneB(benchmark::State& state) {
    const int p = 64, m = 8192;
    const double f = 1.0, b = 2.0, comm = 0.1;
    for (auto _ : state) {
        std::vector<std::vector<std::pair<char, int>>> order(p);
        for (int r = 0; r < p; ++r) {
            const int warm = std::min(p - r - 1, m);
            order[r].reserve(2 * m);
            for (int j = 0; j < warm; ++j) order[r].emplace_back('F', j);
            for (int i = 0; i < m - warm; ++i)
                order[r].emplace_back('F', warm + i), order[r].emplace_back('B', i);
            for (int j = m - warm; j < m; ++j) order[r].emplace_back('B', j);
        }
        std::vector<double> fEnd(std::size_t(p) * m, -1), bEnd(std::size_t(p) * m, -1);
        std::vector<std::size_t> head(p, 0);
        std::vector<double> free(p, 0);
        std::vector<int> stack;
        for (int r = p - 1; r >= 0; --r) stack.push_back(r);
        while (!stack.empty()) {
            const int r = stack.back();
            stack.pop_back();
            while (head[r] < order[r].size()) {
                const auto [kind, j] = order[r][head[r]];
                double start = free[r];
                if (kind == 'F') {
                    if (r > 0) {
                        const double dep = fEnd[std::size_t(r - 1) * m + j];
                        if (dep < 0) break;
                        start = std::max(start, dep + comm);
                    }
                    fEnd[std::size_t(r) * m + j] = free[r] = start + f;
                    if (r + 1 < p) stack.push_back(r + 1);
                } else {
                    if (r + 1 < p) {
                        const double dep = bEnd[std::size_t(r + 1) * m + j];
                        if (dep < 0) break;
                        start = std::max(start, dep + comm);
                    }
                    bEnd[std::size_t(r) * m + j] = free[r] = start + b;
                    if (r > 0) stack.push_back(r - 1);
                }
                ++head[r];
            }
        }
        double makespan = 0, busy = 0;
        for (int r = 0; r < p; ++r) makespan = std::max(makespan, free[r]), busy += m * (f + b);
        benchmark::DoNotOptimize(busy / (p * makespan));
    }
    state.counters["ops"] = double(2 * p * m);
}

/// The same scheduler doing more of the work the measured path does: it also records every
/// op's start and end (16 bytes per op, in device order like the timeline's compute events) and
/// derives makespan and busy time from them. Still no transfer events, no idle attribution, no
/// op identities and no dependency resolution for arbitrary schedules.
void minimalOneFOneBWithTimes(benchmark::State& state) {
    const int p = 64, m = 8192;
    const double f = 1.0, b = 2.0, comm = 0.1;
    for (auto _ : state) {
        std::vector<std::vector<std::pair<char, int>>> order(p);
        for (int r = 0; r < p; ++r) {
            const int warm = std::min(p - r - 1, m);
            order[r].reserve(2 * m);
            for (int j = 0; j < warm; ++j) order[r].emplace_back('F', j);
            for (int i = 0; i < m - warm; ++i)
                order[r].emplace_back('F', warm + i), order[r].emplace_back('B', i);
            for (int j = m - warm; j < m; ++j) order[r].emplace_back('B', j);
        }
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
        std::vector<std::size_t> head(p, 0);
        std::vector<double> free(p, 0);
        std::vector<int> stack;
        for (int r = p - 1; r >= 0; --r) stack.push_back(r);
        while (!stack.empty()) {
            const int r = stack.back();
            stack.pop_back();
            while (head[r] < order[r].size()) {
                const auto [kind, j] = order[r][head[r]];
                double start = free[r];
                if (kind == 'F') {
                    if (r > 0) {
                        const double dep = fEnd[std::size_t(r - 1) * m + j];
                        if (dep < 0) break;
                        start = std::max(start, dep + comm);
                    }
                    fEnd[std::size_t(r) * m + j] = free[r] = start + f;
                    if (r + 1 < p) stack.push_back(r + 1);
                } else {
                    if (r + 1 < p) {
                        const double dep = bEnd[std::size_t(r + 1) * m + j];
                        if (dep < 0) break;
                        start = std::max(start, dep + comm);
                    }
                    bEnd[std::size_t(r) * m + j] = free[r] = start + b;
                    if (r > 0) stack.push_back(r - 1);
                }
                times[std::size_t(r) * 2 * m + head[r]] = {start, free[r]};
                ++head[r];
            }
        }
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
