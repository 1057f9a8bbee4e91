#include "ir/large_array.h"

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace stagecraft {

void adviseLargeArray(void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;
    if (bytes < 2 * kHugePage) return;
    // Only whole huge pages inside the block; the kernel ignores the hint where THP is off.
    // Offsets are computed on the address, the pointer is formed by arithmetic on `data` (no
    // integer-to-pointer cast, which hides the pointer's provenance from the optimizer).
    const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t begin = (address + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t end = (address + bytes) & ~(kHugePage - 1);
    if (end > begin) madvise(static_cast<std::byte*>(data) + (begin - address), end - begin, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

} // namespace stagecraft
