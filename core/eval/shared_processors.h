#pragma once
// The work a measured interval stands for when the ranks of a run shared fewer processors than
// were busy at once (CPU ranks oversubscribed on one machine): while n ranks are busy on `cores`
// processors each runs at min(1, cores / n) of its speed, so an op measured while three others
// computed did less work than its duration says. The fit takes work from the measurement with
// this clock, and the timing gives it back to the prediction under that prediction's own
// concurrency (passes/program_timing.h, RuntimeCosts::cores). docs/fidelity.md.

#include <utility>
#include <vector>

namespace stagecraft {

/// Busy intervals [from, to) of one rank, µs.
using BusyIntervals = std::vector<std::pair<double, double>>;

class SharedProcessorClock {
  public:
    /// `busy[r]`: when rank r used a processor. `cores` <= 0: every rank had its own (work is
    /// wall time).
    SharedProcessorClock(const std::vector<BusyIntervals>& busy, double cores);

    /// The work a rank busy from `from` to `to` did: the integral of min(1, cores / n(t)), n(t)
    /// the ranks busy at t (at least the rank itself). O(log breakpoints).
    double work(double from, double to) const;

  private:
    std::vector<double> m_times; ///< breakpoints of n(t), increasing
    std::vector<double> m_rate;  ///< the rate from m_times[i] to m_times[i + 1]
    std::vector<double> m_work;  ///< the integral from m_times[0] to m_times[i]
    bool m_shared = false;

    double at(double t) const; ///< the integral from m_times[0] to t
};

} // namespace stagecraft
