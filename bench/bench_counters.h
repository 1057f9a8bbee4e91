#pragma once
// Counters every benchmark here reports.

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cstddef>
#include <vector>

namespace stagecraft::bench {

/// "ops" (per iteration) and "ns_per_op" (wall time per op over all iterations).
inline void setOpCounters(benchmark::State& state, std::size_t ops) {
    state.counters["ops"] = double(ops);
    state.counters["ns_per_op"] = benchmark::Counter(
        double(ops) * double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// The median of per-iteration times.
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

/// "median_ms", "p90_ms" and "max_ms" of per-iteration times in milliseconds (Google Benchmark's
/// Time column is the mean, which one slow frame on a shared machine moves).
inline void reportTimes(benchmark::State& state, std::vector<double> ms) {
    std::sort(ms.begin(), ms.end());
    state.counters["median_ms"] = ms.empty() ? 0 : ms[ms.size() / 2];
    state.counters["p90_ms"] = ms.empty() ? 0 : ms[ms.size() * 9 / 10];
    state.counters["max_ms"] = ms.empty() ? 0 : ms.back();
}

} // namespace stagecraft::bench
