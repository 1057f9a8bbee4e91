#pragma once
// Order statistics of samples: what the calibration and the fidelity reports summarise
// measurements with.

#include <cstddef>
#include <utility>
#include <vector>

namespace stagecraft {

/// The q-quantile (0 <= q <= 1) of `samples`, interpolated linearly between the two nearest
/// order statistics; 0 for no sample. Takes a copy: the caller's order is kept.
double quantile(std::vector<double> samples, double q);

/// The arithmetic mean; 0 for no sample.
double mean(const std::vector<double>& samples);

/// `count` quantiles of `samples` at evenly spaced levels 0, 1/(count-1), ..., 1 (all of the
/// samples, sorted, when there are no more than `count`): a distribution kept in fixed space.
std::vector<double> quantiles(std::vector<double> samples, std::size_t count);

/// quantile(samples, 0.5).
double median(std::vector<double> samples);

/// The 95 % percentile-bootstrap interval of the median of `samples` (2,000 resamples with a fixed
/// seed: the same samples always give the same interval); (0, 0) for fewer than 3 samples. How far
/// the median of a few noisy repetitions (a run's iterations) could be from the one more would give.
std::pair<double, double> medianInterval(const std::vector<double>& samples);

} // namespace stagecraft
