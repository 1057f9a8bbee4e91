#include "search/search.h"

#include "generators/registry.h"
#include "search/pareto.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace stagecraft {

namespace {

int threadCount(int wanted, std::size_t work) {
    int n = wanted > 0 ? wanted : int(std::max(1u, std::thread::hardware_concurrency()));
    return int(std::min<std::size_t>(std::size_t(n), std::max<std::size_t>(1, work)));
}

/// Evaluate results[i] for every i on `threads` threads; each index is claimed once from a shared
/// counter and written to its own slot, so the order of completion never shows in the results.
bool evaluateAll(const Project& project, std::vector<ConfigResult>& results, const SearchOptions& options) {
    const std::size_t total = results.size();
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::condition_variable finished;
    auto work = [&] {
        for (;;) {
            if (stop.load(std::memory_order_relaxed)) break;
            const std::size_t i = next.fetch_add(1);
            if (i >= total) break;
            try {
                results[i] = evaluateConfig(project, results[i].config);
            } catch (...) { // evaluateConfig catches what it can name; nothing may escape a worker
                results[i].evaluated = false;
                results[i].fits = false;
                results[i].refusalId = "search.evaluate";
                results[i].refusal = "the configuration could not be evaluated (out of memory?)";
            }
            if (done.fetch_add(1) + 1 == total) {
                std::lock_guard lock(mutex);
                finished.notify_all();
            }
        }
    };
    const int n = threadCount(options.threads, total);
    std::vector<std::thread> pool;
    pool.reserve(std::size_t(n));
    for (int t = 0; t < n; ++t) pool.emplace_back(work);
    bool cancelled = false;
    const auto interval = std::chrono::milliseconds(std::max(1, options.progressIntervalMs));
    {
        std::unique_lock lock(mutex);
        while (done.load() < total) {
            if (finished.wait_for(lock, interval, [&] { return done.load() >= total; })) break;
            if (options.progress) {
                lock.unlock();
                const bool go = options.progress({done.load(), total});
                lock.lock();
                if (!go) {
                    cancelled = true;
                    stop = true;
                    break;
                }
            }
        }
    }
    for (std::thread& t : pool) t.join();
    if (options.progress && !cancelled) options.progress({done.load(), total});
    return cancelled;
}

} // namespace

bool fasterThan(const ConfigResult& a, std::size_t ia, const ConfigResult& b, std::size_t ib) {
    if (a.tokensPerSecond != b.tokensPerSecond) return a.tokensPerSecond > b.tokensPerSecond;
    if (a.peakMemoryBytes != b.peakMemoryBytes) return a.peakMemoryBytes < b.peakMemoryBytes;
    return ia < ib;
}

const ConfigResult* SearchResult::bestOf(const std::string& schedule, int point) const {
    for (const BestConfig& b : best)
        if (b.schedule == schedule && b.point == point) return &results[b.result];
    return nullptr;
}

SearchResult runSearch(const Project& project, const SearchSpace& space, const SearchOptions& options) {
    return runSearch(project, planSearch(project, space), options);
}

SearchResult runSearch(const Project& project, const SearchPlan& plan, const SearchOptions& options) {
    SearchResult out;
    out.gpus = plan.gpus;
    out.points = plan.points;
    out.skipped = plan.skipped;
    out.results.resize(plan.configs.size());
    for (std::size_t i = 0; i < plan.configs.size(); ++i) out.results[i].config = plan.configs[i];
    for (const GeneratorInfo& info : generators())
        if (std::any_of(plan.configs.begin(), plan.configs.end(),
                        [&](const SearchConfig& c) { return c.schedule == info.name; }))
            out.schedules.emplace_back(info.name);

    out.cancelled = evaluateAll(project, out.results, options);

    std::vector<ParetoPoint> memoryPoints, batchPoints;
    std::vector<std::size_t> fitting;
    for (std::size_t i = 0; i < out.results.size(); ++i) {
        const ConfigResult& r = out.results[i];
        if (r.evaluated) ++out.evaluated;
        if (!r.fits) continue;
        ++out.fitting;
        fitting.push_back(i);
        memoryPoints.push_back({r.peakMemoryBytes, r.tokensPerSecond});
        batchPoints.push_back({r.config.batchPerGpu, r.mfu});
    }
    for (const std::size_t k : paretoFront(memoryPoints)) out.memoryFront.push_back(fitting[k]);
    for (const std::size_t k : paretoFront(batchPoints)) out.batchFront.push_back(fitting[k]);

    for (int point = 0; point < int(out.points.size()); ++point)
        for (const std::string& schedule : out.schedules) {
            std::size_t best = out.results.size();
            for (const std::size_t i : fitting) {
                const ConfigResult& r = out.results[i];
                if (r.config.point != point || r.config.schedule != schedule) continue;
                if (best == out.results.size() || fasterThan(r, i, out.results[best], best)) best = i;
            }
            if (best != out.results.size()) out.best.push_back({schedule, point, best});
        }
    return out;
}

} // namespace stagecraft
