// Reading big torch profiler traces: a synthetic Kineto trace of a pipeline rank shaped like the
// real ones in tests/data/torch-traces/ (every "PP:" range followed by the aten ops, autograd
// events and, in the GPU variant, the kernel launches and kernels it caused, with Kineto's args),
// grown to about 100 MB. Reports bytes/s (the target: >= 100 MB/s).
#include "io/measured_run.h"
#include "io/torch_trace.h"

#include <benchmark/benchmark.h>
#include <string>

namespace {

std::string syntheticKineto(std::size_t targetBytes, bool gpu) {
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
                        event(
                            R"({"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "pid": 0, "tid": 7, "ts": )" +
                            std::to_string(at + 20) +
                            R"(, "dur": 35.0, "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": )" +
                            std::to_string(correlation) +
                            R"(, "registers per thread": 168, "shared memory": 98304, "blocks per SM": 0.5, "warps per SM": 2, "grid": [8, 16, 1], "block": [384, 1, 1], "est. achieved occupancy %": 0}})");
                    }
                    ++correlation;
                }
                ts += 1000;
            }
    out += "\n], \"traceName\": \"synthetic.pt.trace.json\"}\n";
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

} // namespace

BENCHMARK(BM_ReadKinetoCpu)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_ReadKinetoGpu)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_MAIN();
