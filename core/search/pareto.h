#pragma once
// Pareto fronts of two objectives: the points no other point beats in both.

#include <cstddef>
#include <vector>

namespace stagecraft {

/// One candidate of a front: `x` to minimise, `y` to maximise (peak memory and throughput;
/// batch size per GPU and efficiency).
struct ParetoPoint {
    double x = 0;
    double y = 0;
};

/// True when `a` dominates `b`: no worse in both (x <= and y >=) and better in one.
bool dominates(const ParetoPoint& a, const ParetoPoint& b);

/// Indices of the non-dominated points, by increasing x (then decreasing y); of equal points the
/// first (lowest index) only. O(n log n).
std::vector<std::size_t> paretoFront(const std::vector<ParetoPoint>& points);

} // namespace stagecraft
