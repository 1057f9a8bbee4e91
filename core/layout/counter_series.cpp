#include "layout/counter_series.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stagecraft {

CounterSeries::CounterSeries(std::span<const std::pair<double, double>> points) {
    std::vector<std::pair<double, double>> p;
    p.reserve(points.size());
    for (const auto& [t, v] : points)
        if (std::isfinite(t) && std::isfinite(v)) p.emplace_back(t, v);
    std::stable_sort(p.begin(), p.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::size_t n = p.size();
    m_times.resize(n);
    m_tree.assign(2 * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        m_times[i] = p[i].first;
        m_tree[n + i] = p[i].second;
        m_peak = std::max(m_peak, p[i].second);
    }
    if (n > 0) m_low = *std::min_element(m_tree.begin() + std::ptrdiff_t(n), m_tree.end());
    for (std::size_t i = n; i-- > 1;) m_tree[i] = std::max(m_tree[2 * i], m_tree[2 * i + 1]);
}

double CounterSeries::maxOver(double t0, double t1) const {
    const std::size_t n = m_times.size();
    if (n == 0 || !(t0 < t1)) return 0;
    // The point in force at t0 (the last at or before it), then every point before t1.
    std::size_t l = std::size_t(std::upper_bound(m_times.begin(), m_times.end(), t0) - m_times.begin());
    std::size_t r = std::size_t(std::lower_bound(m_times.begin(), m_times.end(), t1) - m_times.begin());
    double best = l == 0 ? 0.0 : -std::numeric_limits<double>::infinity();
    if (l > 0) --l;
    if (l >= r) return best;
    return std::max(best, maxOfRange(l, r));
}

double CounterSeries::maxOfRange(std::size_t l, std::size_t r) const {
    const std::size_t n = m_times.size();
    double best = -std::numeric_limits<double>::infinity();
    for (l += n, r += n; l < r; l >>= 1, r >>= 1) {
        if (l & 1) best = std::max(best, m_tree[l++]);
        if (r & 1) best = std::max(best, m_tree[--r]);
    }
    return best;
}

std::vector<double> CounterSeries::columns(double t0, double t1, std::size_t columns) const {
    std::vector<double> out(columns, 0.0);
    if (columns == 0 || !(t0 < t1)) return out;
    const std::size_t n = m_times.size();
    if (n == 0) return out;
    const double step = (t1 - t0) / double(columns);
    // Column boundaries only move right: each search gallops from the previous boundary, so a
    // frame touches the points near the boundaries, not the whole curve, and stays in cache.
    auto firstAfter = [&](std::size_t from, double t) { // first index >= from with time > t
        std::size_t lo = from, jump = 1;
        while (lo + jump < n && m_times[lo + jump] <= t) lo += jump, jump *= 2;
        return std::size_t(std::upper_bound(m_times.begin() + std::ptrdiff_t(lo),
                                            m_times.begin() + std::ptrdiff_t(std::min(n, lo + jump + 1)), t) -
                           m_times.begin());
    };
    auto firstAtOrAfter = [&](std::size_t from, double t) { // first index >= from with time >= t
        std::size_t lo = from, jump = 1;
        while (lo + jump < n && m_times[lo + jump] < t) lo += jump, jump *= 2;
        return std::size_t(std::lower_bound(m_times.begin() + std::ptrdiff_t(lo),
                                            m_times.begin() + std::ptrdiff_t(std::min(n, lo + jump + 1)), t) -
                           m_times.begin());
    };
    std::size_t after = 0; // first point after the column's start
    for (std::size_t c = 0; c < columns; ++c) {
        const double a = t0 + step * double(c), b = t0 + step * double(c + 1);
        after = firstAfter(after, a);
        // The point in force at a (none yet: 0), then every point before b.
        const std::size_t r = firstAtOrAfter(after, b);
        double best = after == 0 ? 0.0 : m_tree[n + after - 1];
        if (after < r) best = std::max(best, maxOfRange(after, r));
        out[c] = best;
    }
    return out;
}

} // namespace stagecraft
