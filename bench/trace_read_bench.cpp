// Reading big torch profiler traces: a synthetic Kineto trace of a pipeline rank shaped like the
// real ones in tests/data/torch-traces/ (every "PP:" range followed by the aten ops, autograd
// events and, in the GPU variant, the kernel launches and kernels it caused, with Kineto's args),
// grown to about 100 MB in memory and 200 MB as a file. Reports bytes/s (the target: >= 100 MB/s)
// and, for the file, the peak heap against the events the reader keeps (target: under 3x).
#include "heap_counter.h"
#include "io/measured_run.h"
#include "io/torch_trace.h"

#include <benchmark/benchmark.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

/// The events of a synthetic trace the reader keeps while it reads: the ranges (a process id and
/// an ActionRange each) and, to time them on the GPU, the kernel launches and the kernels (a
/// process id or correlation id and two times: 24 bytes each).
struct KeptEvents {
    std::size_t ranges = 0, launches = 0, kernels = 0;
    std::size_t bytes() const {
        return ranges * (sizeof(double) + sizeof(stagecraft::ActionRange)) + (launches + kernels) * 24;
    }
};

std::string syntheticKineto(std::size_t targetBytes, bool gpu, KeptEvents* kept = nullptr) {
    KeptEvents counted;
    std::string out =
        R"({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 4},
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85000000000}],
  "traceEvents": [
)";
    double ts = 1.0e12;
    long correlation = 1;
    bool first = true;
    auto event = [&](const std::string& text) {
        out += first ? "  " : ",\n  ";
        first = false;
        out += text;
    };
    for (int iteration = 0; out.size() < targetBytes; ++iteration)
        for (int mb = 0; mb < 64 && out.size() < targetBytes; ++mb)
            for (const char* kind : {"F", "SEND_F", "B", "SEND_B"}) {
                const std::string name = "PP:0" + std::string(kind) + std::to_string(mb);
                event(R"({"ph": "X", "cat": "user_annotation", "name": ")" + name +
                      R"(", "pid": 4242, "tid": 4242, "ts": )" + std::to_string(ts) +
                      R"(, "dur": 900.5, "args": {"External id": )" + std::to_string(correlation) +
                      R"(, "Record function id": 0, "Ev Idx": )" + std::to_string(correlation) + "}}");
                ++counted.ranges;
                for (int op = 0; op < 14; ++op) {
                    const double at = ts + 5 + op * 60;
                    event(
                        R"({"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 4242, "tid": 4242, "ts": )" +
                        std::to_string(at) +
                        R"(, "dur": 41.25, "args": {"External id": 99, "Sequence number": 1234, "Fwd thread id": 0, "Record function id": 0, "Concrete Inputs": ["", "", "", "1", "1"], "Input type": ["float", "float", "float", "Scalar", "Scalar"], "Input Strides": [[1], [1024, 1], [1, 1024], [], []], "Input Dims": [[1024], [64, 1024], [1024, 1024], [], []], "Ev Idx": 77}})");
                    if (gpu) {
                        event(
                            R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": )" +
                            std::to_string(at + 1) +
                            R"(, "dur": 4.5, "args": {"cbid": 211, "correlation": )" +
                            std::to_string(correlation) + R"(, "External id": 99}})");
                        ++counted.launches;
                        event(
                            R"({"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "pid": 0, "tid": 7, "ts": )" +
                            std::to_string(at + 20) +
                            R"(, "dur": 35.0, "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": )" +
                            std::to_string(correlation) +
                            R"(, "registers per thread": 168, "shared memory": 98304, "blocks per SM": 0.5, "warps per SM": 2, "grid": [8, 16, 1], "block": [384, 1, 1], "est. achieved occupancy %": 0}})");
                        ++counted.kernels;
                    }
                    ++correlation;
                }
                ts += 1000;
            }
    out += "\n], \"traceName\": \"synthetic.pt.trace.json\"}\n";
    if (kept) *kept = counted;
    return out;
}

void readKineto(benchmark::State& state, bool gpu) {
    const std::string text = syntheticKineto(100u << 20, gpu);
    std::size_t ranges = 0;
    for (auto _ : state) {
        const auto ranks = stagecraft::parseTorchTrace(text, "synthetic.json");
        ranges = ranks.front().ranges.size();
        benchmark::DoNotOptimize(ranks);
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(text.size()));
    state.counters["MB"] = double(text.size()) / 1e6;
    state.counters["ranges"] = double(ranges);
}

void BM_ReadKinetoCpu(benchmark::State& state) {
    readKineto(state, false);
}
void BM_ReadKinetoGpu(benchmark::State& state) {
    readKineto(state, true);
}

/// The GPU trace of about 200 MB as a file, written on first use and removed at exit.
struct KinetoFile {
    std::filesystem::path path;
    std::uintmax_t bytes = 0;
    KeptEvents kept;
    KinetoFile() {
        path = std::filesystem::temp_directory_path() /
               ("stagecraft_trace_read_bench_" + std::to_string(::getpid()) + ".json");
        std::ofstream(path, std::ios::binary) << syntheticKineto(200u << 20, true, &kept);
        bytes = std::filesystem::file_size(path);
    }
    ~KinetoFile() {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
};

/// readTorchTrace: the file read block by block (what the CLI and the GUI do).
void BM_ReadKinetoGpuFile(benchmark::State& state) {
    static const KinetoFile file;
    std::size_t peak = 0, ranges = 0;
    for (auto _ : state) {
        const std::size_t before = stagecraft::bench::startPeakTracking();
        const auto ranks = stagecraft::readTorchTrace(file.path);
        peak = stagecraft::bench::peakHeapSince(before);
        ranges = ranks.front().ranges.size();
        benchmark::DoNotOptimize(ranks);
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(file.bytes));
    state.counters["MB"] = double(file.bytes) / 1e6;
    state.counters["ranges"] = double(ranges);
    state.counters["kept_MB"] = double(file.kept.bytes()) / 1e6;
    state.counters["peak_heap_MB"] = double(peak) / 1e6;
    state.counters["peak_heap_x_kept"] = double(peak) / double(file.kept.bytes());
}

} // namespace

BENCHMARK(BM_ReadKinetoCpu)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_ReadKinetoGpu)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_ReadKinetoGpuFile)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_MAIN();
