#pragma once
// Configuration search: which (pp, dp, tp, micro-batches, chunks, schedule, ZeRO stage) fits the
// memory and trains fastest for a project's model and cluster. Every configuration of the plan
// (search_space.h) is evaluated (search_eval.h) on a pool of threads; results come back in the
// plan's order, so they are identical for any thread count. Reports the best configuration of
// each schedule at each batch point and two Pareto fronts: throughput against peak memory, and
// efficiency (MFU) against batch size per GPU.

#include "search/search_eval.h"
#include "search/search_space.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace stagecraft {

struct SearchProgress {
    std::size_t done = 0;  ///< configurations evaluated so far
    std::size_t total = 0; ///< configurations in the plan
};

struct SearchOptions {
    int threads = 0; ///< 0 = every hardware thread
    /// Called on the calling thread about every `progressIntervalMs` and once at the end; return
    /// false to cancel (the evaluations in flight finish, no new one starts).
    std::function<bool(const SearchProgress&)> progress;
    int progressIntervalMs = 100;
};

/// The fastest fitting configuration of one schedule at one batch point.
struct BestConfig {
    std::string schedule;
    int point = 0;          ///< index into SearchResult::points
    std::size_t result = 0; ///< index into SearchResult::results
};

struct SearchResult {
    int gpus = 0;
    std::vector<BatchPoint> points;
    std::vector<std::string> schedules;   ///< the schedules searched, in registry order
    std::vector<ConfigResult> results;    ///< one per planned configuration, in plan order
    std::size_t skipped = 0;              ///< combinations the rules refused before evaluation
    std::size_t evaluated = 0;            ///< results evaluated (not refused)
    std::size_t fitting = 0;              ///< evaluated and within the memory limit
    bool cancelled = false;               ///< results after the cancel point are not evaluated
    std::vector<BestConfig> best;         ///< by point, then schedule (absent when none fits)
    std::vector<std::size_t> memoryFront; ///< fitting results: max tokens/s, min peak memory
    std::vector<std::size_t> batchFront;  ///< best per point: max MFU, min batch size per GPU

    /// The best configuration of `schedule` at `point`, or nullptr.
    const ConfigResult* bestOf(const std::string& schedule, int point) const;
};

/// Plan and evaluate. Throws ValidationError "search.space" for a space that cannot be searched.
SearchResult runSearch(const Project& project, const SearchSpace& space, const SearchOptions& options = {});

/// Evaluate an existing plan (benchmarks, tests).
SearchResult runSearch(const Project& project, const SearchPlan& plan, const SearchOptions& options);

/// Order of throughput among results: more tokens/s first, then less memory, then plan order.
bool fasterThan(const ConfigResult& a, std::size_t ia, const ConfigResult& b, std::size_t ib);

} // namespace stagecraft
