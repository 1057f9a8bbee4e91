#pragma once
// Peak heap of a piece of work, for benchmarks that bound memory per op or per event. Linking
// heap_counter.cpp replaces the global operator new and delete of the benchmark with counting ones.

#include <cstddef>

namespace stagecraft::bench {

/// Starts a peak measurement: returns the heap in use now, from which the peak is counted.
std::size_t startPeakTracking();
/// The largest heap growth since the startPeakTracking() that returned `before`.
std::size_t peakHeapSince(std::size_t before);

} // namespace stagecraft::bench
