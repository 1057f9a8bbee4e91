#pragma once
// Checks for every CUDA runtime, cuBLAS and NCCL call of the CUDA layer (STYLE.md item 15). A
// failing call throws BackendError whose message names the call, the library's error name and
// text, the source place, the host, the rank and the device, e.g.
//   cudaMallocFromPoolAsync(&ptr, bytes, m_pool, m_compute) failed: cudaErrorMemoryAllocation (out of
//   memory) at backends/cuda/device_buffers.cpp:80 [host gpu07, rank 3, device 1]
// Destructors use the SC_*_LOG forms, which print the same text to stderr and carry on.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <string>

namespace stagecraft::runtime::cuda {

/// Sets what every error message names: this process's rank (-1: not known yet) and device.
void setErrorContext(int rank, int device);
/// "host gpu07, rank 3, device 1".
std::string errorContext();

/// "cudaErrorMemoryAllocation (out of memory)".
std::string cudaErrorText(cudaError_t error);
/// "unhandled cuda error (run with NCCL_DEBUG=INFO for details); NCCL's last error: ...".
std::string ncclErrorText(ncclResult_t result);
/// "CUBLAS_STATUS_NOT_INITIALIZED (the library was not initialized)".
std::string cublasErrorText(cublasStatus_t status);

/// "<expression> failed: <text> at <file>:<line> [<context>]".
std::string callFailure(const char* expression, const std::string& text, const char* file, int line);

[[noreturn]] void throwCudaError(cudaError_t error, const char* expression, const char* file, int line);
[[noreturn]] void throwNcclError(ncclResult_t result, const char* expression, const char* file, int line);
[[noreturn]] void throwCublasError(cublasStatus_t status, const char* expression, const char* file, int line);
void logCudaError(cudaError_t error, const char* expression, const char* file, int line) noexcept;
void logNcclError(ncclResult_t result, const char* expression, const char* file, int line) noexcept;

} // namespace stagecraft::runtime::cuda

#define SC_CUDA_CHECK(expr)                                                                                  \
    do {                                                                                                     \
        const cudaError_t scCudaError_ = (expr);                                                             \
        if (scCudaError_ != cudaSuccess)                                                                     \
            ::stagecraft::runtime::cuda::throwCudaError(scCudaError_, #expr, __FILE__, __LINE__);            \
    } while (false)

#define SC_CUBLAS_CHECK(expr)                                                                                \
    do {                                                                                                     \
        const cublasStatus_t scCublasStatus_ = (expr);                                                       \
        if (scCublasStatus_ != CUBLAS_STATUS_SUCCESS)                                                        \
            ::stagecraft::runtime::cuda::throwCublasError(scCublasStatus_, #expr, __FILE__, __LINE__);       \
    } while (false)

#define SC_NCCL_CHECK(expr)                                                                                  \
    do {                                                                                                     \
        const ncclResult_t scNcclResult_ = (expr);                                                           \
        if (scNcclResult_ != ncclSuccess)                                                                    \
            ::stagecraft::runtime::cuda::throwNcclError(scNcclResult_, #expr, __FILE__, __LINE__);           \
    } while (false)

/// For destructors and abort paths: report on stderr, never throw.
#define SC_CUDA_LOG(expr)                                                                                    \
    do {                                                                                                     \
        const cudaError_t scCudaError_ = (expr);                                                             \
        if (scCudaError_ != cudaSuccess)                                                                     \
            ::stagecraft::runtime::cuda::logCudaError(scCudaError_, #expr, __FILE__, __LINE__);              \
    } while (false)

#define SC_NCCL_LOG(expr)                                                                                    \
    do {                                                                                                     \
        const ncclResult_t scNcclResult_ = (expr);                                                           \
        if (scNcclResult_ != ncclSuccess)                                                                    \
            ::stagecraft::runtime::cuda::logNcclError(scNcclResult_, #expr, __FILE__, __LINE__);             \
    } while (false)
