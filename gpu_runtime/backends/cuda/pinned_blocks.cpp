#include "backends/cuda/pinned_blocks.h"

#include "backends/cuda/cuda_check.h"

#include <algorithm>

namespace stagecraft::runtime::cuda {

PinnedBlocks::~PinnedBlocks() {
    for (auto& [bytes, data] : m_free) SC_CUDA_LOG(cudaFreeHost(data));
}

PinnedBlocks::Block PinnedBlocks::acquire(std::size_t bytes) {
    bytes = std::max<std::size_t>(bytes, 64);
    const auto it = m_free.lower_bound(bytes);
    // Reuse a free block unless it is much larger than needed (a small transfer must not pin a
    // large block that a large transfer then has to allocate again).
    if (it != m_free.end() && it->first <= 2 * bytes) {
        Block block{it->second, it->first};
        m_free.erase(it);
        ++m_lent;
        return block;
    }
    void* data = nullptr;
    SC_CUDA_CHECK(cudaHostAlloc(&data, bytes, cudaHostAllocDefault));
    ++m_lent;
    return {data, bytes};
}

void PinnedBlocks::give(Block block) {
    if (!block.data) return;
    m_free.emplace(block.bytes, block.data);
    --m_lent;
}

} // namespace stagecraft::runtime::cuda
