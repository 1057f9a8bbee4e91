#include "eval/shared_processors.h"

#include <algorithm>

namespace stagecraft {

SharedProcessorClock::SharedProcessorClock(const std::vector<BusyIntervals>& busy, double cores) {
    m_shared = cores > 0;
    if (!m_shared) return;
    std::vector<std::pair<double, int>> edges; // (time, +1 starts / -1 ends)
    for (const BusyIntervals& rank : busy)
        for (const auto& [from, to] : rank)
            if (to > from) {
                edges.emplace_back(from, +1);
                edges.emplace_back(to, -1);
            }
    // Ends before starts at one instant: back-to-back intervals of a rank do not count it twice.
    std::sort(edges.begin(), edges.end());
    int n = 0;
    for (std::size_t i = 0; i < edges.size();) {
        const double t = edges[i].first;
        for (; i < edges.size() && edges[i].first == t; ++i) n += edges[i].second;
        if (!m_times.empty() && m_times.back() == t)
            m_rate.pop_back();
        else
            m_times.push_back(t);
        m_rate.push_back(std::min(1.0, cores / double(std::max(1, n))));
    }
    m_work.assign(m_times.size(), 0.0);
    for (std::size_t i = 1; i < m_times.size(); ++i)
        m_work[i] = m_work[i - 1] + (m_times[i] - m_times[i - 1]) * m_rate[i - 1];
}

double SharedProcessorClock::at(double t) const {
    if (m_times.empty() || t <= m_times.front()) return t - (m_times.empty() ? 0.0 : m_times.front());
    const auto it = std::upper_bound(m_times.begin(), m_times.end(), t);
    const std::size_t i = std::size_t(it - m_times.begin()) - 1;
    return m_work[i] + (t - m_times[i]) * (i + 1 < m_times.size() ? m_rate[i] : 1.0);
}

double SharedProcessorClock::work(double from, double to) const {
    if (!m_shared || to <= from) return std::max(0.0, to - from);
    return at(to) - at(from);
}

} // namespace stagecraft
