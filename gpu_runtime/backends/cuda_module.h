#pragma once
// The CUDA device layer lives in its own shared module (libstagecraft_cuda_layer.so) that this
// loader opens with dlopen only when a run asks for it: a host-only run, the CLI and the tests
// never load cudart, cuBLAS (hundreds of MB) or NCCL, and never need a GPU driver. Nothing here
// includes a CUDA header.
//
// ABI rule. The module is C++ behind a C entry point: it hands back a DeviceLayer* whose vtable,
// std::string and std::vector members and exceptions (BackendError, DeadlineExceeded) cross the
// boundary. It must therefore be built from the same sources (exec/device_layer.h with
// work/device_work.h, this header) with the same compiler and libstdc++ as the program that loads
// it, which the build guarantees
// by building both in one tree. The loader checks this: the module reports the build id below
// (ABI version, compiler version, libstdc++ date) and a module that reports another is refused
// with both ids in the message instead of crashing at the first virtual call.

#include "exec/device_layer.h"

#include <cstddef>
#include <memory>
#include <string>

#define STAGECRAFT_CUDA_ABI 1

#define STAGECRAFT_CUDA_STR_(x) #x
#define STAGECRAFT_CUDA_STR(x) STAGECRAFT_CUDA_STR_(x)
#if defined(__GLIBCXX__)
#define STAGECRAFT_CUDA_STDLIB "libstdc++ " STAGECRAFT_CUDA_STR(__GLIBCXX__)
#elif defined(_LIBCPP_VERSION)
#define STAGECRAFT_CUDA_STDLIB "libc++ " STAGECRAFT_CUDA_STR(_LIBCPP_VERSION)
#else
#define STAGECRAFT_CUDA_STDLIB "unknown standard library"
#endif
/// What both sides of the boundary must agree on (see the ABI rule above). Expanded in the loader
/// and in the module's entry file, both plain C++ translation units of one build.
#define STAGECRAFT_CUDA_BUILD_ID                                                                             \
    "stagecraft-cuda-abi " STAGECRAFT_CUDA_STR(STAGECRAFT_CUDA_ABI) ", " __VERSION__                         \
                                                                    ", " STAGECRAFT_CUDA_STDLIB

namespace stagecraft::runtime {

struct CudaLayerOptions {
    int localRank = 0; ///< this rank's index among the ranks of its host: device = localRank % devices
    bool mpiTransport = false; ///< --transport mpi: host-staged MPI instead of NCCL (several ranks per GPU)
};

struct CudaProbe {
    bool moduleFound = false; ///< the module was found and loaded
    int devices = 0;          ///< CUDA devices this process can use
    std::string message;      ///< why `devices` is 0 (no module, no driver, no device), else what was found
};

/// Loads the module (next to the executable, then in ../lib/) and counts the devices. Never
/// throws; a second call returns the first answer's module without loading it again.
CudaProbe probeCuda();

/// Loads the module and creates the layer: selects the device, creates the streams and cuBLAS.
/// Communicators are made later, in DeviceLayer::setup (MPI_Init must have been called by then).
/// Throws BackendError with the reason when the module or a device is missing.
std::unique_ptr<DeviceLayer> createCudaLayer(const CudaLayerOptions& options);

/// Bump STAGECRAFT_CUDA_ABI when DeviceLayer, CudaLayerOptions or the entry points change shape.
inline constexpr int kCudaLayerAbiVersion = STAGECRAFT_CUDA_ABI;

/// File name of the module (the loader looks for it in the executable's folder, then ../lib/).
inline constexpr const char* kCudaModuleFileName = "libstagecraft_cuda_layer.so";

// The module's extern "C" entry points, resolved with dlsym (all three must exist). They never
// throw: a failure returns 0 / nullptr and writes a NUL-terminated reason into `message` (at most
// `size` bytes including the NUL). The module stays loaded until the process exits: every layer's
// vtable and code live in it.

/// `const char* stagecraft_cuda_build_id()`: the module's STAGECRAFT_CUDA_BUILD_ID.
inline constexpr const char* kCudaBuildIdSymbol = "stagecraft_cuda_build_id";
using CudaBuildIdFn = const char* (*)();

/// `int stagecraft_cuda_probe(char* message, size_t size)`: usable CUDA devices; 0 with the reason
/// (no driver, no device) in `message`.
inline constexpr const char* kCudaProbeSymbol = "stagecraft_cuda_probe";
using CudaProbeFn = int (*)(char* message, std::size_t size);

/// `DeviceLayer* stagecraft_cuda_create(const CudaLayerOptions*, char* message, size_t size)`: a
/// new layer that the caller owns (deleted through DeviceLayer's virtual destructor), or nullptr
/// with the reason in `message`.
inline constexpr const char* kCudaCreateSymbol = "stagecraft_cuda_create";
using CudaCreateFn = DeviceLayer* (*)(const CudaLayerOptions* options, char* message, std::size_t size);

} // namespace stagecraft::runtime
