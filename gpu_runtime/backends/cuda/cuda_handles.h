#pragma once
// Owning handles for CUDA streams and events (STYLE.md item 15: RAII for comm/stream/event).
// Destroying either is safe while work is still queued: CUDA releases it once that work is done.

#include "backends/cuda/cuda_check.h"

#include <cuda_runtime_api.h>
#include <memory>

namespace stagecraft::runtime::cuda {

struct StreamDeleter {
    void operator()(cudaStream_t stream) const noexcept { SC_CUDA_LOG(cudaStreamDestroy(stream)); }
};
struct EventDeleter {
    void operator()(cudaEvent_t event) const noexcept { SC_CUDA_LOG(cudaEventDestroy(event)); }
};
using StreamHandle = std::unique_ptr<CUstream_st, StreamDeleter>;
using EventHandle = std::unique_ptr<CUevent_st, EventDeleter>;

/// A non-blocking stream (it never synchronizes with the legacy default stream) of the given
/// priority (cudaDeviceGetStreamPriorityRange: lower numbers run first).
inline StreamHandle makeStream(int priority) {
    cudaStream_t stream = nullptr;
    SC_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, priority));
    return StreamHandle(stream);
}

/// A timing event (start and end of a record, the anchor).
inline EventHandle makeTimingEvent() {
    cudaEvent_t event = nullptr;
    SC_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDefault));
    return EventHandle(event);
}

/// An ordering-only event (cheaper to record and wait on than a timing event).
inline EventHandle makeSyncEvent() {
    cudaEvent_t event = nullptr;
    SC_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    return EventHandle(event);
}

} // namespace stagecraft::runtime::cuda
