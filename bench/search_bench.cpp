// Configuration search throughput: configurations evaluated per second (generate, predict, ZeRO
// gather replay, memory check) on one thread and on every hardware thread, over the breadth-first
// paper's 6.6B sample (64 GPUs, batch sizes per GPU 0.25..16, 1F1B, interleaved, breadth-first).
#include "project/project_json.h"
#include "search/search.h"

#include <benchmark/benchmark.h>
#include <thread>

namespace {

const stagecraft::Project& project() {
    static const stagecraft::Project p =
        stagecraft::readProject(std::string(STAGECRAFT_SOURCE_DIR) + "/samples/bfpp-6.6b.stagecraft.json");
    return p;
}

const stagecraft::SearchPlan& plan() {
    static const stagecraft::SearchPlan p = [] {
        stagecraft::SearchSpace space;
        space.schedules = {"1f1b", "interleaved", "breadth-first"};
        space.batchPerGpu = stagecraft::parseBatchRange("0.25..16", "--batch-per-gpu");
        return stagecraft::planSearch(project(), space);
    }();
    return p;
}

void search(benchmark::State& state) {
    stagecraft::SearchOptions options;
    options.threads = int(state.range(0));
    std::size_t configs = 0;
    for (auto _ : state) {
        const stagecraft::SearchResult r = stagecraft::runSearch(project(), plan(), options);
        configs = r.results.size();
        benchmark::DoNotOptimize(r.fitting);
    }
    state.counters["configs"] = double(configs);
    state.counters["configs_per_s"] =
        benchmark::Counter(double(configs) * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["threads"] = double(options.threads);
}

} // namespace

BENCHMARK(search)
    ->Arg(1)
    ->Arg(int(std::max(1u, std::thread::hardware_concurrency())))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_MAIN();
