#include "backends/cuda/cuda_device.h"

#include "backends/cuda/cuda_check.h"

#include <cuda_runtime_api.h>
#include <set>

namespace stagecraft::runtime::cuda {
namespace {

std::string versionText(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

} // namespace

int usableDevices(std::string& why) {
    int runtime = 0, driver = 0;
    (void)cudaRuntimeGetVersion(&runtime);
    (void)cudaDriverGetVersion(&driver); // 0 when there is no driver
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
        (void)cudaGetLastError();
        why = "cudaGetDeviceCount failed: " + cudaErrorText(error) + ": ";
        switch (error) {
        case cudaErrorInsufficientDriver:
            why += driver == 0 ? "no NVIDIA driver is installed (libcuda.so.1 was not found)"
                               : "the NVIDIA driver supports CUDA " + versionText(driver) +
                                     ", older than the runtime's " + versionText(runtime);
            break;
        case cudaErrorStubLibrary:
            why += "the driver library found is the CUDA toolkit's stub: remove its lib/stubs directory from "
                   "LD_LIBRARY_PATH";
            break;
        case cudaErrorNoDevice:
            why += "no CUDA device is visible (check CUDA_VISIBLE_DEVICES and nvidia-smi)";
            break;
        default:
            why += "the CUDA driver cannot be used";
            break;
        }
        return 0;
    }
    if (count <= 0) {
        why = "no CUDA device is visible (check CUDA_VISIBLE_DEVICES and nvidia-smi)";
        return 0;
    }
    std::set<std::string> names;
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp props{};
        if (cudaGetDeviceProperties(&props, d) == cudaSuccess)
            names.insert(std::string(props.name) + " (sm_" + std::to_string(props.major) +
                         std::to_string(props.minor) + ")");
    }
    why = std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") + ":";
    for (const std::string& name : names) why += " " + name + (name == *names.rbegin() ? "" : ",");
    why += "; driver CUDA " + versionText(driver) + ", runtime " + versionText(runtime);
    return count;
}

} // namespace stagecraft::runtime::cuda
