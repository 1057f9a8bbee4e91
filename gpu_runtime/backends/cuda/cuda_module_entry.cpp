// The module's C entry points (backends/cuda_module.h). They are the only exported symbols (the
// module is built with hidden visibility), and no exception crosses them: failures come back as
// text. Read the ABI rule in cuda_module.h.

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_layer.h"
#include "backends/cuda_module.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using stagecraft::runtime::CudaLayerOptions;
using stagecraft::runtime::DeviceLayer;

static_assert(stagecraft::runtime::kCudaLayerAbiVersion == STAGECRAFT_CUDA_ABI);

void writeMessage(char* out, std::size_t size, const std::string& text) noexcept {
    if (out && size > 0) std::snprintf(out, size, "%s", text.c_str());
}

// Read by the driver when CUDA initializes, so set before the first CUDA call and never over the
// user's own value. The layer runs 1 compute stream, 1 release stream and one per lane (2 per peer
// plus the collectives); with the default of 8 hardware queues a larger rank shares queues between
// unrelated streams, and a stream waiting at a queue's head holds up the others.
void preferEnvironment() noexcept {
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
}

} // namespace

#define STAGECRAFT_CUDA_EXPORT extern "C" __attribute__((visibility("default")))

STAGECRAFT_CUDA_EXPORT const char* stagecraft_cuda_build_id() {
    return STAGECRAFT_CUDA_BUILD_ID;
}

STAGECRAFT_CUDA_EXPORT int stagecraft_cuda_probe(char* message, std::size_t size) {
    preferEnvironment();
    try {
        std::string why;
        const int devices = stagecraft::runtime::cuda::usableDevices(why);
        writeMessage(message, size, why);
        return devices;
    } catch (const std::exception& e) {
        writeMessage(message, size, e.what());
    } catch (...) {
        writeMessage(message, size, "unknown error while counting CUDA devices");
    }
    return 0;
}

STAGECRAFT_CUDA_EXPORT DeviceLayer* stagecraft_cuda_create(const CudaLayerOptions* options, char* message,
                                                           std::size_t size) {
    preferEnvironment();
    try {
        return new stagecraft::runtime::cuda::CudaLayer(options ? *options : CudaLayerOptions{});
    } catch (const std::exception& e) {
        writeMessage(message, size, e.what());
    } catch (...) {
        writeMessage(message, size, "unknown error while creating the CUDA layer");
    }
    return nullptr;
}
