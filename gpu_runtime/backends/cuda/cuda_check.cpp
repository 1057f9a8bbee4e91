#include "backends/cuda/cuda_check.h"

#include "exec/device_layer.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace stagecraft::runtime::cuda {
namespace {

std::atomic<int> g_rank{-1};
std::atomic<int> g_device{-1};

std::string hostName() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "?";
    return name;
}

// Source paths are absolute in the build; the part from "backends/" on is what a reader needs.
const char* shortFile(const char* file) {
    const char* from = std::strstr(file, "backends/");
    return from ? from : file;
}

} // namespace

void setErrorContext(int rank, int device) {
    g_rank = rank;
    g_device = device;
}

std::string errorContext() {
    static const std::string host = hostName();
    const int rank = g_rank;
    const int device = g_device;
    return "host " + host + ", rank " + (rank >= 0 ? std::to_string(rank) : std::string("?")) +
           (device >= 0 ? ", device " + std::to_string(device) : std::string());
}

std::string cudaErrorText(cudaError_t error) {
    return std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ")";
}

std::string ncclErrorText(ncclResult_t result) {
    std::string text = ncclGetErrorString(result);
    const char* last = ncclGetLastError(nullptr);
    if (last && *last) text += "; NCCL's last error: " + std::string(last);
    return text;
}

std::string cublasErrorText(cublasStatus_t status) {
    return std::string(cublasGetStatusName(status)) + " (" + cublasGetStatusString(status) + ")";
}

std::string callFailure(const char* expression, const std::string& text, const char* file, int line) {
    return std::string(expression) + " failed: " + text + " at " + shortFile(file) + ":" +
           std::to_string(line) + " [" + errorContext() + "]";
}

void throwCudaError(cudaError_t error, const char* expression, const char* file, int line) {
    // Reading the error resets the runtime's last-error state for errors that are not sticky
    // (out of memory, invalid value), so that a later check does not report this one again.
    (void)cudaGetLastError();
    throw BackendError(callFailure(expression, cudaErrorText(error), file, line));
}

void throwNcclError(ncclResult_t result, const char* expression, const char* file, int line) {
    throw BackendError(callFailure(expression, ncclErrorText(result), file, line));
}

void throwCublasError(cublasStatus_t status, const char* expression, const char* file, int line) {
    throw BackendError(callFailure(expression, cublasErrorText(status), file, line));
}

void logCudaError(cudaError_t error, const char* expression, const char* file, int line) noexcept {
    try {
        (void)cudaGetLastError();
        std::fprintf(stderr, "stagecraft cuda: %s\n",
                     callFailure(expression, cudaErrorText(error), file, line).c_str());
    } catch (...) {
    }
}

void logNcclError(ncclResult_t result, const char* expression, const char* file, int line) noexcept {
    try {
        std::fprintf(stderr, "stagecraft cuda: %s\n",
                     callFailure(expression, ncclErrorText(result), file, line).c_str());
    } catch (...) {
    }
}

} // namespace stagecraft::runtime::cuda
