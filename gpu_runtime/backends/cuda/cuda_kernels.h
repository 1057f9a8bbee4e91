#pragma once
// The layer's own kernels: fill a new buffer, spin for the sleep workload, the optimizer's axpy.
// Each launcher returns the launch's own error (cudaLaunchKernel), not a stale one left by an
// earlier call; the caller checks it with SC_CUDA_CHECK.

#include "backends/cuda/dtype.h"

#include <cstdint>
#include <cuda_runtime_api.h>

namespace stagecraft::runtime::cuda {

/// Writes small finite values (in [-1/8, 1/8), a hash of the index and `seed`) to `elements`
/// elements: GEMM outputs then stay far from fp16's range and never hit inf or NaN.
cudaError_t launchFill(void* data, std::uint64_t elements, DType type, std::uint64_t seed,
                       cudaStream_t stream);

/// Occupies one thread of the device until `nanoseconds` have passed on %globaltimer, so the
/// stream is busy for that long and later work on it starts after it.
cudaError_t launchSpin(std::uint64_t nanoseconds, cudaStream_t stream);

/// y += alpha · x over `elements` elements, computed in fp32 and rounded to the element type.
cudaError_t launchAxpy(std::uint64_t elements, float alpha, const void* x, void* y, DType type,
                       cudaStream_t stream);

} // namespace stagecraft::runtime::cuda
