#pragma once
// Page-locked host buffers for the host-staged MPI transport, kept and reused by size: pinning
// memory is slow (and synchronizes streams), so after the first iteration every transfer finds a
// block of its size already pinned.

#include <cstddef>
#include <map>

namespace stagecraft::runtime::cuda {

class PinnedBlocks {
  public:
    PinnedBlocks() = default;
    ~PinnedBlocks();
    PinnedBlocks(const PinnedBlocks&) = delete;
    PinnedBlocks& operator=(const PinnedBlocks&) = delete;

    struct Block {
        void* data = nullptr;
        std::size_t bytes = 0; ///< the block's capacity (at least what was asked)
    };
    /// The smallest free block of at least `bytes`, else a new one.
    Block acquire(std::size_t bytes);
    void give(Block block);
    /// Blocks still lent out are never freed (an MPI request may still write into one).
    std::size_t lent() const { return m_lent; }

  private:
    std::multimap<std::size_t, void*> m_free;
    std::size_t m_lent = 0;
};

} // namespace stagecraft::runtime::cuda
