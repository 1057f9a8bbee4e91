#pragma once
// Reservation of the per-op arrays of million-op simulations. A fresh allocation of tens of MB is
// an mmap whose every 4 KiB page faults on first touch; most of a simulation's system time went
// there. Asking the kernel for transparent huge pages on such a block (where it supports them)
// turns 512 faults into one. Purely a performance hint: contents and behaviour do not change.

#include <cstddef>
#include <vector>

namespace stagecraft {

/// Hint that [data, data + bytes) will be written in full soon: back it with huge pages where
/// the platform can (Linux madvise); a no-op for small blocks and elsewhere.
void adviseLargeArray(void* data, std::size_t bytes);

/// `v.reserve(n)` plus the hint on the reserved block.
template <typename T>
void reserveLarge(std::vector<T>& v, std::size_t n) {
    v.reserve(n);
    adviseLargeArray(v.data(), v.capacity() * sizeof(T));
}

/// `v.assign(n, value)` into storage reserved with the hint.
template <typename T>
void assignLarge(std::vector<T>& v, std::size_t n, const T& value) {
    if (v.capacity() < n) {
        std::vector<T>().swap(v);
        reserveLarge(v, n);
    }
    v.assign(n, value);
}

} // namespace stagecraft
