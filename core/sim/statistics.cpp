#include "sim/statistics.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

namespace stagecraft {

namespace {

double quantileOfSorted(const std::vector<double>& samples, double q) {
    if (samples.empty()) return 0.0;
    const double at = std::clamp(q, 0.0, 1.0) * double(samples.size() - 1);
    const auto lo = std::size_t(std::floor(at));
    const std::size_t hi = std::min(samples.size() - 1, lo + 1);
    return samples[lo] + (samples[hi] - samples[lo]) * (at - double(lo));
}

} // namespace

double quantile(std::vector<double> samples, double q) {
    std::sort(samples.begin(), samples.end());
    return quantileOfSorted(samples, q);
}

double mean(const std::vector<double>& samples) {
    if (samples.empty()) return 0.0;
    double sum = 0;
    for (const double v : samples) sum += v;
    return sum / double(samples.size());
}

std::vector<double> quantiles(std::vector<double> samples, std::size_t count) {
    std::sort(samples.begin(), samples.end());
    if (samples.size() <= count || count < 2) return samples;
    std::vector<double> out;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        out.push_back(quantileOfSorted(samples, double(i) / double(count - 1)));
    return out;
}

double median(std::vector<double> samples) {
    return quantile(std::move(samples), 0.5);
}

std::pair<double, double> medianInterval(const std::vector<double>& samples) {
    if (samples.size() < 3) return {0.0, 0.0};
    constexpr int kResamples = 2000;
    std::mt19937_64 random(20261125);
    std::uniform_int_distribution<std::size_t> pick(0, samples.size() - 1);
    std::vector<double> medians, draw(samples.size());
    medians.reserve(kResamples);
    for (int k = 0; k < kResamples; ++k) {
        for (double& v : draw) v = samples[pick(random)];
        medians.push_back(median(draw));
    }
    std::sort(medians.begin(), medians.end());
    return {medians[kResamples / 40], medians[kResamples - 1 - kResamples / 40]};
}

} // namespace stagecraft
