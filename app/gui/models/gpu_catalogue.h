#pragma once
// Catalogue of common training GPUs: picking one fills the cluster fields. Figures are the
// vendors' nominal ones: dense fp16/bf16 tensor peak, memory, and per-direction NVLink
// (intra-node) and per-GPU InfiniBand (inter-node) bandwidth of the usual DGX/HGX systems.

#include "project/project.h"

#include <span>
#include <string_view>

namespace stagecraft::gui {

struct GpuSpec {
    std::string_view id;    ///< stored in cluster.gpu: "A100-80GB"
    std::string_view title; ///< shown in the combo: "NVIDIA A100 80GB SXM"
    double peakTflops;
    double memoryGib;
    double intraNodeGbps;
    double interNodeGbps;
};

std::span<const GpuSpec> gpuCatalogue();

/// The entry whose id matches (case-insensitive), or null.
const GpuSpec* findGpu(std::string_view id);

/// The entry whose figures all equal the project's cluster (the id may differ), or null: a
/// project edited by hand shows "Custom".
const GpuSpec* matchGpu(const ClusterConfig& cluster);

/// Fill the cluster fields from `gpu`. The memory budget follows the GPU when it was the old
/// GPU's full memory (the default), and stays when the user chose a smaller one.
void applyGpu(Project& project, const GpuSpec& gpu);

} // namespace stagecraft::gui
