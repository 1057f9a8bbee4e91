#include "gui/models/gpu_catalogue.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace stagecraft::gui {
namespace {

// NVLink per direction: V100 NVLink2 150 GB/s, A100 NVLink3 300 GB/s, H100/H200 NVLink4
// 450 GB/s, B200 NVLink5 900 GB/s. InfiniBand per GPU: EDR 100, HDR 200, NDR 400 Gbit/s.
constexpr std::array<GpuSpec, 7> kGpus{{
    {"V100-32GB", "NVIDIA V100 32GB SXM2", 125, 32, 1200, 100},
    {"A100-40GB", "NVIDIA A100 40GB SXM", 312, 40, 2400, 200},
    {"A100-80GB", "NVIDIA A100 80GB SXM", 312, 80, 2400, 200},
    {"H100-SXM", "NVIDIA H100 80GB SXM", 989, 80, 3600, 400},
    {"H100-PCIe", "NVIDIA H100 80GB PCIe", 756, 80, 512, 400},
    {"H200", "NVIDIA H200 141GB SXM", 989, 141, 3600, 400},
    {"B200", "NVIDIA B200 180GB", 2250, 180, 7200, 400},
}};

bool equalNoCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

} // namespace

std::span<const GpuSpec> gpuCatalogue() {
    return kGpus;
}

const GpuSpec* findGpu(std::string_view id) {
    for (const GpuSpec& gpu : kGpus)
        if (equalNoCase(gpu.id, id)) return &gpu;
    return nullptr;
}

const GpuSpec* matchGpu(const ClusterConfig& cluster) {
    for (const GpuSpec& gpu : kGpus)
        if (gpu.peakTflops == cluster.peakTflops && gpu.memoryGib == cluster.memoryGib &&
            gpu.intraNodeGbps == cluster.intraNodeGbps && gpu.interNodeGbps == cluster.interNodeGbps)
            return &gpu;
    return nullptr;
}

void applyGpu(Project& project, const GpuSpec& gpu) {
    if (project.memory.limitGib == project.cluster.memoryGib) project.memory.limitGib = gpu.memoryGib;
    project.cluster.gpu = std::string(gpu.id);
    project.cluster.peakTflops = gpu.peakTflops;
    project.cluster.memoryGib = gpu.memoryGib;
    project.cluster.intraNodeGbps = gpu.intraNodeGbps;
    project.cluster.interNodeGbps = gpu.interNodeGbps;
}

} // namespace stagecraft::gui
