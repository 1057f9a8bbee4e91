// Counting replacements of the global operator new and delete (malloc_usable_size of each block),
// for bench/heap_counter.h.
#include "heap_counter.h"

#include <atomic>
#include <cstdlib>
#include <malloc.h>
#include <new>

namespace {
std::atomic<std::size_t> g_current{0};
std::atomic<std::size_t> g_peak{0};
} // namespace

void* operator new(std::size_t size) {
    void* p = std::malloc(size);
    if (!p) throw std::bad_alloc();
    const std::size_t now = g_current += malloc_usable_size(p);
    std::size_t peak = g_peak.load();
    while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
    }
    return p;
}
void operator delete(void* p) noexcept {
    if (!p) return;
    g_current -= malloc_usable_size(p);
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    operator delete(p);
}

namespace stagecraft::bench {

std::size_t startPeakTracking() {
    const std::size_t before = g_current.load();
    g_peak = before;
    return before;
}

std::size_t peakHeapSince(std::size_t before) {
    return g_peak.load() - before;
}

} // namespace stagecraft::bench
