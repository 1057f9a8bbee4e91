// The executor's own cost per instruction: stagecraft-run's one executor drives a device layer
// that completes everything at once and only stamps the clock, so what is measured is the walk
// over the program (groups, buffer lifetimes, dependencies, building each op's work, stamps),
// which a real backend pays on top of its compute and communication. Goal: <= 5 µs per op.
#include "exec/executor.h"

#include <benchmark/benchmark.h>

using namespace stagecraft;
using namespace stagecraft::runtime;

namespace {

/// A layer with zero-duration ops: every request is complete when posted.
class InstantLayer final : public DeviceLayer {
  public:
    std::string describe() const override { return "instant"; }
    std::size_t elementBytes() const override { return 4; }
    void setup(const LayerSetup& s) override { m_stamps.assign(std::size_t(s.records), Stamp{}); }
    void anchor() override { m_anchor = Clock::now(); }
    Clock::time_point anchorTime() const override { return m_anchor; }
    void reanchor() override {}
    Buffer allocate(std::uint64_t) override { return m_next++; }
    void release(Buffer) override {}
    std::uint64_t allocations() const override { return std::uint64_t(m_next); }
    void reuse(Buffer) override {}
    std::uint64_t residentBytes(const std::vector<Buffer>&) override { return 0; }
    void compute(const ComputeWork& w) override { stampNow(w.record); }
    void beginGroup() override {}
    void endGroup() override {}
    Request send(const Transfer& t) override { return stampNow(t.record); }
    Request recv(const Transfer& t) override { return stampNow(t.record); }
    Request allReduce(const AllReduce& r) override { return stampNow(r.record); }
    void wait(Request, Clock::time_point) override {}
    void progress() override {}
    bool completed(Request) override { return true; }
    bool recordDone(std::int32_t) override { return true; }
    std::string asyncError() override { return {}; }
    void finish(Clock::time_point) override {}
    void times(std::vector<Stamp>& stamps) override { stamps = m_stamps; }
    void abort(std::chrono::milliseconds) noexcept override {}

  private:
    Request stampNow(std::int32_t record) {
        const double t = std::chrono::duration<double, std::micro>(Clock::now() - m_anchor).count();
        m_stamps[std::size_t(record)] = {t, t};
        return record;
    }
    std::vector<Stamp> m_stamps;
    Clock::time_point m_anchor = Clock::now();
    Buffer m_next = 0;
};

void BM_ExecutorPerInstruction(benchmark::State& state) {
    RunRequest request;
    request.projectPath = std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/runtime/tiny.stagecraft.json";
    request.schedule = state.range(0) == 0 ? "1f1b" : "zb-v";
    request.sets = {"parallel.microbatches=1024", "costs.mode=manual"};
    request.workload = state.range(1) == 0 ? Workload::Sleep : Workload::Model;
    const RunPlan plan = makeRunPlan(request);
    const RankPlan rank = makeRankPlan(plan, 1);
    InstantLayer layer;
    LayerSetup setup;
    setup.records = std::int32_t(rank.steps.size());
    layer.setup(setup);
    Executor executor(plan, rank, layer);
    executor.allocateStatic();
    layer.anchor();
    for (auto _ : state) benchmark::DoNotOptimize(executor.run(0, std::chrono::seconds(10)));
    state.counters["instructions"] = double(rank.steps.size());
    state.counters["per_instruction"] =
        benchmark::Counter(double(rank.steps.size()) * double(state.iterations()),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.SetLabel(request.schedule + (state.range(1) == 0 ? ", sleep workload" : ", model workload"));
}
BENCHMARK(BM_ExecutorPerInstruction)
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
