// A minimal native 1F1B simulator as a whole process: the other half of the pair that measures
// `stagecraft-cli simulate` (see simulate_process_pair.sh). It generates 1F1B for p devices and m
// micro-batches in flat arrays, list-schedules it with unit costs (F = 1, backward = 2, no
// transfer time: Stagecraft's `costs.mode = unit`), records every op's start and end, and prints
// the makespan, the bubble and each device's busy time.
#include "baseline_1f1b.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const int p = argc > 1 ? std::atoi(argv[1]) : 64;
    const int m = argc > 2 ? std::atoi(argv[2]) : 8192;
    if (p < 1 || m < 1 || p > 4096 || m > (1 << 20)) {
        std::fprintf(stderr, "usage: baseline_1f1b_process [P [M]] with 1 <= P <= 4096, 1 <= M <= 1048576\n");
        return 2;
    }
    using namespace stagecraft::bench;
    const auto order = oneFOneBOrder(p, m);
    struct Time {
        double start, end;
    };
    std::vector<Time> times(std::size_t(2) * std::size_t(p) * std::size_t(m)); // [r * 2m + position]
    std::vector<double> fEnd(std::size_t(p) * std::size_t(m), -1.0),
        bEnd(std::size_t(p) * std::size_t(m), -1.0);
    runOneFOneB(order, p, m, BaselineCosts{1.0, 2.0, 0.0}, fEnd, bEnd,
                [&](int r, std::size_t position, double start, double end) {
                    times[std::size_t(r) * 2 * std::size_t(m) + position] = {start, end};
                });
    double makespan = 0;
    std::vector<double> busy(std::size_t(p), 0.0);
    for (std::size_t i = 0; i < times.size(); ++i) {
        makespan = std::max(makespan, times[i].end);
        busy[i / (2 * std::size_t(m))] += times[i].end - times[i].start;
    }
    double total = 0;
    for (double b : busy) total += b;
    std::printf("1f1b p=%d m=%d ops=%zu makespan %.0f bubble %.2f%%\n", p, m, times.size(), makespan,
                100.0 * (1.0 - total / (double(p) * makespan)));
    for (int r = 0; r < p; ++r) std::printf("D%d busy %.0f\n", r, busy[std::size_t(r)]);
    return 0;
}
