// Reading Chrome traces: throughput (target: at least 100 MB/s, which the viewer and the overlay
// need) and peak heap against the kept events (target: under 3x their size, sizeof(TimelineEvent)
// bytes each). The trace is the 1F1B timeline of p = 32, m = 6144 (393,216 ops; with transfers,
// about 770,000 slices and 200 MB), written once to a temporary file.
// Run: ./build/bench/chrome_trace_read_bench
#include "generators/registry.h"
#include "heap_counter.h"
#include "io/chrome_trace.h"
#include "sim/list_scheduler.h"
#include "sim/simulator.h"

#include <benchmark/benchmark.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace {

using namespace stagecraft;

/// The trace file, written on first use and removed at exit.
struct TraceFile {
    std::filesystem::path path;
    std::uintmax_t bytes = 0;
    TraceFile() {
        ScheduleParams params;
        params.pp = 32;
        params.microbatches = 6144;
        const Schedule s = generateSchedule("1f1b", params);
        const Timeline t = simulate(s, fullStageCosts(s, 1.0, 2.0, 0.0, 0.25));
        path = std::filesystem::temp_directory_path() /
               ("stagecraft_chrome_trace_read_bench_" + std::to_string(::getpid()) + ".json");
        writeChromeTrace(t, path);
        bytes = std::filesystem::file_size(path);
    }
    ~TraceFile() {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
};

const TraceFile& traceFile() {
    static const TraceFile file;
    return file;
}

void setCounters(benchmark::State& state, std::uintmax_t bytes, std::size_t events, std::size_t peak) {
    state.SetBytesProcessed(std::int64_t(bytes) * std::int64_t(state.iterations()));
    state.counters["events"] = double(events);
    state.counters["file_MB"] = double(bytes) / 1e6;
    state.counters["peak_heap_per_event"] = double(peak) / double(events);
    state.counters["peak_heap_x_events"] = double(peak) / double(events * sizeof(TimelineEvent));
}

/// readChromeTrace: the file streamed block by block (what the CLI, the GUI and the viewer do).
void readTraceFile(benchmark::State& state) {
    const TraceFile& file = traceFile();
    std::size_t events = 0, peak = 0;
    for (auto _ : state) {
        const std::size_t before = bench::startPeakTracking();
        const Timeline t = readChromeTrace(file.path);
        events = t.events.size();
        peak = bench::peakHeapSince(before);
        benchmark::DoNotOptimize(t.events.data());
    }
    setCounters(state, file.bytes, events, peak);
}

/// parseChromeTrace: the same trace already in memory (the text itself is not counted).
void parseTraceText(benchmark::State& state) {
    const TraceFile& file = traceFile();
    std::ifstream in(file.path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t events = 0, peak = 0;
    for (auto _ : state) {
        const std::size_t before = bench::startPeakTracking();
        const Timeline t = parseChromeTrace(text, "bench.json");
        events = t.events.size();
        peak = bench::peakHeapSince(before);
        benchmark::DoNotOptimize(t.events.data());
    }
    setCounters(state, file.bytes, events, peak);
}

} // namespace

BENCHMARK(readTraceFile)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Iterations(3);
BENCHMARK(parseTraceText)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Iterations(3);

BENCHMARK_MAIN();
