#pragma once
// The layer's buffers: device memory from a stream-ordered pool of this layer's own, filled with
// small values, and released without ever blocking the host or a stream.
//
// Why a pool and not cudaMalloc/cudaFree: cudaFree synchronizes the device, and cudaMalloc may.
// While a NCCL receive waits for its peer on another stream, such a synchronization waits for it
// too, and the peer may be waiting for work this host has not posted yet: a deadlock across
// ranks. cudaMallocFromPoolAsync / cudaFreeAsync never synchronize.
//
// Ordering. A buffer is allocated and filled on the compute stream; its `computeDone` event is
// recorded after the fill and after every compute that touches it. Any other stream waits for
// that event before it first uses the buffer (a receive must not overwrite a buffer that the fill
// or a compute is still reading). release() frees on a stream of its own that waits for every
// stream that used the buffer, so neither compute nor a communication stream ever waits for a
// release; the pool may reuse the memory once that free has run (opportunistic reuse) but never
// makes a stream wait for it (internal dependencies are off).

#include "backends/cuda/cuda_handles.h"
#include "backends/cuda/dtype.h"
#include "exec/device_layer.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace stagecraft::runtime::cuda {

class DeviceBuffers {
  public:
    DeviceBuffers(int device, cudaStream_t compute);
    /// Frees every buffer still held; the device must be idle (the layer synchronizes first).
    ~DeviceBuffers();
    DeviceBuffers(const DeviceBuffers&) = delete;
    DeviceBuffers& operator=(const DeviceBuffers&) = delete;

    /// The element type; fixed once a buffer exists (offsets are counted in elements).
    void setType(DType type);
    DType type() const { return m_type; }

    Buffer allocate(std::uint64_t elements);
    void release(Buffer buffer);

    /// Device address of `elements` elements at `operand`. Throws BackendError naming `what` when
    /// the buffer is unknown or the range runs past its end.
    void* address(const Operand& operand, std::uint64_t elements, const std::string& what) const;
    /// `stream` (not the compute stream) is about to use `buffer`: it waits for the buffer's
    /// fill and computes so far, and release() will wait for it.
    void useOn(Buffer buffer, cudaStream_t stream);
    /// The compute stream has just enqueued work that reads or writes `buffer`.
    void touchedByCompute(Buffer buffer);
    /// The buffer's contents are dead: the compute stream waits for every stream that used it,
    /// and its `computeDone` moves there, so a later user on any stream follows its earlier users.
    void reuse(Buffer buffer);
    /// The pool's high-water mark of memory in use (cudaMemPoolAttrUsedMemHigh).
    std::uint64_t usedHigh() const;

    cudaStream_t releaseStream() const { return m_release.get(); }
    /// Bytes in buffers not yet released.
    std::uint64_t liveBytes() const { return m_liveBytes; }

  private:
    struct State {
        void* data = nullptr;
        std::uint64_t elements = 0;
        std::uint64_t bytes = 0;
        EventHandle computeDone;
        std::vector<cudaStream_t> streams; // streams other than compute that used it
    };
    State& state(Buffer buffer, const char* what);
    const State& state(Buffer buffer, const std::string& what) const;
    [[noreturn]] void throwOutOfMemory(std::uint64_t elements, std::uint64_t bytes) const;

    cudaStream_t m_compute;
    StreamHandle m_release;
    EventHandle m_scratch; // records a stream's position for one wait; re-recorded freely
    cudaMemPool_t m_pool = nullptr;
    DType m_type = DType::F32;
    std::unordered_map<Buffer, State> m_buffers;
    std::vector<EventHandle> m_spareEvents; // computeDone events of released buffers, for reuse
    Buffer m_next = 0;
    std::uint64_t m_liveBytes = 0;
};

/// "1.50 GiB (1610612736 bytes)".
std::string formatBytes(std::uint64_t bytes);

} // namespace stagecraft::runtime::cuda
