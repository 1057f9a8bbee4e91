#pragma once
// A counter (memory in use, micro-batches in flight) as a step curve that a timeline view can
// draw per pixel column at any zoom: built once, then the maximum over any time range is a
// logarithmic query, so a strip under a million-op chart costs its pixels, not its points (the
// same rule as the bars' draw lists).

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace stagecraft {

class CounterSeries {
  public:
    CounterSeries() = default;
    /// `points`: (time, value from then on), in time order (points out of order are sorted;
    /// non-finite ones dropped). Before the first point the counter is 0.
    explicit CounterSeries(std::span<const std::pair<double, double>> points);

    bool empty() const { return m_times.empty(); }
    std::size_t size() const { return m_times.size(); }
    /// Largest value the counter takes anywhere (0 when empty or all negative).
    double peak() const { return m_peak; }
    /// Smallest value it takes after its first point (0 when empty): a strip's floor, so the
    /// part that changes fills the strip rather than a static base.
    double low() const { return m_low; }
    /// Largest value the counter holds at some time in [t0, t1) (t0 < t1): the value in force at
    /// t0 and every change before t1. 0 where nothing was recorded yet. O(log n).
    double maxOver(double t0, double t1) const;
    /// `columns` maxima over equal slices of [t0, t1): what one pixel column each shows.
    std::vector<double> columns(double t0, double t1, std::size_t columns) const;

  private:
    /// Max over the points [l, r) (indices), r > l.
    double maxOfRange(std::size_t l, std::size_t r) const;

    std::vector<double> m_times;
    std::vector<double> m_tree; ///< iterative segment tree of maxima: leaves at [n, 2n)
    double m_peak = 0;
    double m_low = 0;
};

} // namespace stagecraft
