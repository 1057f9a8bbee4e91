#pragma once
// Order statistics of samples: what the calibration and the fidelity reports summarise
// measurements with.

#include <vector>

namespace stagecraft {

/// The q-quantile (0 <= q <= 1) of `samples`, interpolated linearly between the two nearest
/// order statistics; 0 for no sample. Takes a copy: the caller's order is kept.
double quantile(std::vector<double> samples, double q);

/// The arithmetic mean; 0 for no sample.
double mean(const std::vector<double>& samples);

/// quantile(samples, 0.5).
double median(std::vector<double> samples);

} // namespace stagecraft
