#pragma once
// The minimal native baseline the simulator is measured against: a worklist list scheduler
// specialised to 1F1B in flat arrays (F after the previous stage's F, B after the next stage's B
// and its own F). Shared by simulate_bench (in-process) and baseline_1f1b_process (a whole
// process, measured as a pair with `stagecraft-cli simulate`).

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace stagecraft::bench {

struct BaselineCosts {
    double f = 1.0, b = 2.0, comm = 0.1;
};

/// 1F1B order per device as (kind, micro-batch) in flat arrays: warm-up forwards, then F/B
/// pairs, then the cool-down backwards.
inline std::vector<std::vector<std::pair<char, int>>> oneFOneBOrder(int p, int m) {
    std::vector<std::vector<std::pair<char, int>>> order(std::size_t(p), std::vector<std::pair<char, int>>{});
    for (int r = 0; r < p; ++r) {
        const int warm = std::min(p - r - 1, m);
        order[std::size_t(r)].reserve(std::size_t(2) * std::size_t(m));
        for (int j = 0; j < warm; ++j) order[std::size_t(r)].emplace_back('F', j);
        for (int i = 0; i < m - warm; ++i)
            order[std::size_t(r)].emplace_back('F', warm + i), order[std::size_t(r)].emplace_back('B', i);
        for (int j = m - warm; j < m; ++j) order[std::size_t(r)].emplace_back('B', j);
    }
    return order;
}

/// Runs the order. `fEnd`/`bEnd` hold p * m ends, all -1 on entry. Calls
/// `record(device, position, start, end)` for every op; returns when each device becomes free.
template <typename Record>
std::vector<double> runOneFOneB(const std::vector<std::vector<std::pair<char, int>>>& order, int p, int m,
                                const BaselineCosts& costs, std::vector<double>& fEnd,
                                std::vector<double>& bEnd, Record&& record) {
    std::vector<std::size_t> head(std::size_t(p), 0);
    std::vector<double> free(std::size_t(p), 0);
    std::vector<int> stack;
    for (int r = p - 1; r >= 0; --r) stack.push_back(r);
    while (!stack.empty()) {
        const int r = stack.back();
        stack.pop_back();
        const auto& row = order[std::size_t(r)];
        std::size_t& at = head[std::size_t(r)];
        double& freeAt = free[std::size_t(r)];
        while (at < row.size()) {
            const auto [kind, j] = row[at];
            double start = freeAt;
            if (kind == 'F') {
                if (r > 0) {
                    const double dep = fEnd[std::size_t(r - 1) * std::size_t(m) + std::size_t(j)];
                    if (dep < 0) break;
                    start = std::max(start, dep + costs.comm);
                }
                fEnd[std::size_t(r) * std::size_t(m) + std::size_t(j)] = freeAt = start + costs.f;
                if (r + 1 < p) stack.push_back(r + 1);
            } else {
                if (r + 1 < p) {
                    const double dep = bEnd[std::size_t(r + 1) * std::size_t(m) + std::size_t(j)];
                    if (dep < 0) break;
                    start = std::max(start, dep + costs.comm);
                }
                bEnd[std::size_t(r) * std::size_t(m) + std::size_t(j)] = freeAt = start + costs.b;
                if (r > 0) stack.push_back(r - 1);
            }
            record(r, at, start, freeAt);
            ++at;
        }
    }
    return free;
}

} // namespace stagecraft::bench
