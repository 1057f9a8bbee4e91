#include "backends/cuda/cuda_kernels.h"

#include <algorithm>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <type_traits>

namespace stagecraft::runtime::cuda {
namespace {

using u64 = unsigned long long; // the kernels' 64-bit index type

constexpr unsigned kThreads = 256;
constexpr std::uint64_t kMaxBlocks = 8192; // grid-stride loops cover the rest

template <typename T>
__device__ T fromFloat(float value) {
    if constexpr (std::is_same_v<T, __half>)
        return __float2half_rn(value);
    else if constexpr (std::is_same_v<T, __nv_bfloat16>)
        return __float2bfloat16_rn(value);
    else
        return value;
}

__device__ float toFloat(float value) {
    return value;
}
__device__ float toFloat(__half value) {
    return __half2float(value);
}
__device__ float toFloat(__nv_bfloat16 value) {
    return __bfloat162float(value);
}

template <typename T>
__global__ void fillKernel(T* data, u64 elements, u64 seed) {
    const u64 stride = u64(gridDim.x) * blockDim.x;
    for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < elements; i += stride) {
        u64 h = (i + seed * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
        const float unit = float((h >> 40) & 0xFFFFu) * (1.0f / 65536.0f); // [0, 1)
        data[i] = fromFloat<T>((unit - 0.5f) * 0.25f);
    }
}

template <typename T>
__global__ void axpyKernel(u64 elements, float alpha, const T* x, T* y) {
    const u64 stride = u64(gridDim.x) * blockDim.x;
    for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < elements; i += stride)
        y[i] = fromFloat<T>(toFloat(y[i]) + alpha * toFloat(x[i]));
}

__device__ u64 globalTimerNs() {
    u64 ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
}

// One thread waits; __nanosleep leaves the SM's issue slots to kernels that share it (a NCCL
// kernel of another stream, say).
__global__ void spinKernel(u64 nanoseconds) {
    const u64 start = globalTimerNs();
    while (globalTimerNs() - start < nanoseconds) __nanosleep(100);
}

dim3 gridFor(std::uint64_t elements) {
    const std::uint64_t blocks = std::min<std::uint64_t>((elements + kThreads - 1) / kThreads, kMaxBlocks);
    return dim3(unsigned(blocks));
}

template <typename T>
cudaError_t fill(void* data, std::uint64_t elements, std::uint64_t seed, cudaStream_t stream) {
    T* typed = static_cast<T*>(data);
    u64 n = elements;
    u64 s = seed;
    void* args[] = {&typed, &n, &s};
    return cudaLaunchKernel(reinterpret_cast<const void*>(&fillKernel<T>), gridFor(elements), dim3(kThreads),
                            args, 0, stream);
}

template <typename T>
cudaError_t axpy(std::uint64_t elements, float alpha, const void* x, void* y, cudaStream_t stream) {
    const T* typedX = static_cast<const T*>(x);
    T* typedY = static_cast<T*>(y);
    u64 n = elements;
    void* args[] = {&n, &alpha, &typedX, &typedY};
    return cudaLaunchKernel(reinterpret_cast<const void*>(&axpyKernel<T>), gridFor(elements), dim3(kThreads),
                            args, 0, stream);
}

} // namespace

cudaError_t launchFill(void* data, std::uint64_t elements, DType type, std::uint64_t seed,
                       cudaStream_t stream) {
    if (elements == 0) return cudaSuccess; // a grid of 0 blocks is an invalid configuration
    switch (type) {
    case DType::F32:
        return fill<float>(data, elements, seed, stream);
    case DType::F16:
        return fill<__half>(data, elements, seed, stream);
    case DType::BF16:
        return fill<__nv_bfloat16>(data, elements, seed, stream);
    }
    return cudaErrorInvalidValue;
}

cudaError_t launchSpin(std::uint64_t nanoseconds, cudaStream_t stream) {
    u64 ns = nanoseconds;
    void* args[] = {&ns};
    return cudaLaunchKernel(reinterpret_cast<const void*>(&spinKernel), dim3(1), dim3(1), args, 0, stream);
}

cudaError_t launchAxpy(std::uint64_t elements, float alpha, const void* x, void* y, DType type,
                       cudaStream_t stream) {
    if (elements == 0) return cudaSuccess;
    switch (type) {
    case DType::F32:
        return axpy<float>(elements, alpha, x, y, stream);
    case DType::F16:
        return axpy<__half>(elements, alpha, x, y, stream);
    case DType::BF16:
        return axpy<__nv_bfloat16>(elements, alpha, x, y, stream);
    }
    return cudaErrorInvalidValue;
}

} // namespace stagecraft::runtime::cuda
