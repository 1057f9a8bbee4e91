#pragma once
// Counters every benchmark here reports.

#include <benchmark/benchmark.h>
#include <cstddef>

namespace stagecraft::bench {

/// "ops" (per iteration) and "ns_per_op" (wall time per op over all iterations).
inline void setOpCounters(benchmark::State& state, std::size_t ops) {
    state.counters["ops"] = double(ops);
    state.counters["ns_per_op"] = benchmark::Counter(
        double(ops) * double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

} // namespace stagecraft::bench
