#include "backends/cuda_module.h"

#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <system_error>
#include <vector>

namespace stagecraft::runtime {
namespace {

namespace fs = std::filesystem;

struct LoadedModule {
    void* handle = nullptr; // never dlclose'd: the layers' code and vtables live in it
    CudaProbeFn probe = nullptr;
    CudaCreateFn create = nullptr;
    std::string path;
    std::string error; // why no module is loaded
};

std::string lastDlError() {
    const char* text = dlerror();
    return text ? text : "unknown dynamic loader error";
}

// Tries one file; on success fills `module`, else returns the reason.
std::string tryLoad(const fs::path& file, LoadedModule& module) {
    std::error_code ec;
    if (!fs::exists(file, ec)) return "not found";
    dlerror(); // clear a stale message
    // RTLD_NOW: a missing symbol or library shows here, not at the first call. RTLD_LOCAL: the
    // module's CUDA, cuBLAS and NCCL symbols stay out of the program's namespace.
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        std::string why = lastDlError();
        if (why.find("cannot open shared object file") != std::string::npos)
            why += " (the module needs the CUDA runtime, cuBLAS, NCCL and MPI libraries on the library path)";
        return why;
    }
    const auto buildId = reinterpret_cast<CudaBuildIdFn>(dlsym(handle, kCudaBuildIdSymbol));
    const auto probe = reinterpret_cast<CudaProbeFn>(dlsym(handle, kCudaProbeSymbol));
    const auto create = reinterpret_cast<CudaCreateFn>(dlsym(handle, kCudaCreateSymbol));
    if (!buildId || !probe || !create) {
        const std::string why = "it lacks the entry points " + std::string(kCudaBuildIdSymbol) + ", " +
                                kCudaProbeSymbol + " and " + kCudaCreateSymbol + ": " + lastDlError();
        dlclose(handle); // nothing of it was used yet
        return why;
    }
    const char* theirs = buildId();
    if (!theirs || std::strcmp(theirs, STAGECRAFT_CUDA_BUILD_ID) != 0) {
        const std::string why = "it was built by another toolchain or Stagecraft version (module: \"" +
                                std::string(theirs ? theirs : "?") + "\", program: \"" +
                                STAGECRAFT_CUDA_BUILD_ID + "\"); rebuild both in one build tree";
        dlclose(handle);
        return why;
    }
    module.handle = handle;
    module.probe = probe;
    module.create = create;
    module.path = file.string();
    return {};
}

LoadedModule load() {
    LoadedModule module;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) {
        module.error = std::string("cannot find the CUDA layer module ") + kCudaModuleFileName +
                       ": reading /proc/self/exe failed: " + ec.message();
        return module;
    }
    const fs::path dir = exe.parent_path();
    std::string tried;
    for (const fs::path& candidate :
         {dir / kCudaModuleFileName, dir.parent_path() / "lib" / kCudaModuleFileName}) {
        const std::string why = tryLoad(candidate.lexically_normal(), module);
        if (why.empty()) return module;
        tried += "\n  " + candidate.lexically_normal().string() + ": " + why;
    }
    module.error = std::string("the CUDA layer module ") + kCudaModuleFileName +
                   " could not be loaded (build with CUDA, NCCL and MPI to get it):" + tried;
    return module;
}

const LoadedModule& module() {
    static const LoadedModule loaded = load(); // once per process, thread-safe
    return loaded;
}

} // namespace

CudaProbe probeCuda() {
    CudaProbe probe;
    const LoadedModule& m = module();
    if (!m.handle) {
        probe.message = m.error;
        return probe;
    }
    probe.moduleFound = true;
    std::vector<char> message(2048, '\0');
    const int devices = m.probe(message.data(), message.size());
    message.back() = '\0';
    probe.devices = devices > 0 ? devices : 0;
    probe.message = message.data();
    if (probe.message.empty())
        probe.message =
            probe.devices > 0 ? "CUDA devices found" : "no CUDA device (the module gave no reason)";
    return probe;
}

std::unique_ptr<DeviceLayer> createCudaLayer(const CudaLayerOptions& options) {
    const LoadedModule& m = module();
    if (!m.handle) throw BackendError(m.error);
    std::vector<char> message(4096, '\0');
    DeviceLayer* layer = m.create(&options, message.data(), message.size());
    message.back() = '\0';
    if (!layer)
        throw BackendError(message[0] ? std::string(message.data())
                                      : "the CUDA layer module (" + m.path + ") failed without a reason");
    return std::unique_ptr<DeviceLayer>(layer);
}

} // namespace stagecraft::runtime
