#include "sim/statistics.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace stagecraft {

double quantile(std::vector<double> samples, double q) {
    if (samples.empty()) return 0.0;
    std::sort(samples.begin(), samples.end());
    const double at = std::clamp(q, 0.0, 1.0) * double(samples.size() - 1);
    const auto lo = std::size_t(std::floor(at));
    const std::size_t hi = std::min(samples.size() - 1, lo + 1);
    return samples[lo] + (samples[hi] - samples[lo]) * (at - double(lo));
}

double mean(const std::vector<double>& samples) {
    if (samples.empty()) return 0.0;
    double sum = 0;
    for (const double v : samples) sum += v;
    return sum / double(samples.size());
}

double median(std::vector<double> samples) {
    return quantile(std::move(samples), 0.5);
}

} // namespace stagecraft
