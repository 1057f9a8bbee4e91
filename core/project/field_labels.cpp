#include "project/field_labels.h"

#include <array>
#include <utility>

namespace stagecraft {
namespace {

constexpr std::pair<std::string_view, std::string_view> kLabels[] = {
    {"name", "Project name"},
    {"schedules", "Schedules"},
    {"model.layers", "Layers"},
    {"model.hidden", "Hidden size"},
    {"model.heads", "Attention heads"},
    {"model.seq_len", "Sequence length"},
    {"model.vocab", "Vocabulary size"},
    {"model.micro_batch_size", "Micro-batch size (sequences)"},
    {"model.dtype", "Precision"},
    {"model.attention", "Attention kernels (dense or causal)"},
    {"cluster.gpu", "GPU name"},
    {"cluster.gpus_per_node", "GPUs per node"},
    {"cluster.nodes", "Nodes"},
    {"cluster.peak_tflops", "Peak (TFLOP/s per GPU)"},
    {"cluster.memory_gib", "GPU memory (GiB)"},
    {"cluster.intra_node_gbps", "Intra-node bandwidth (Gbit/s)"},
    {"cluster.inter_node_gbps", "Inter-node bandwidth (Gbit/s)"},
    {"cluster.latency_us", "Link latency (µs)"},
    {"parallel.pp", "Pipeline stages (pp)"},
    {"parallel.dp", "Data parallel (dp)"},
    {"parallel.tp", "Tensor parallel (tp)"},
    {"parallel.microbatches", "Micro-batches (m)"},
    {"parallel.chunks", "Chunks per device (v)"},
    {"parallel.slices", "Sequence slices (k)"},
    {"parallel.slice_split", "Slice split (uniform or balanced)"},
    {"memory.limit_gib", "Memory limit (GiB)"},
    {"memory.limit_microbatches", "Activation limit (micro-batches)"},
    {"memory.zero_stage", "ZeRO stage"},
    {"memory.recompute", "Activation recomputation"},
    {"costs.mode", "Cost model"},
    {"costs.f", "Forward F (µs)"},
    {"costs.b", "Input gradient B (µs)"},
    {"costs.w", "Weight gradient W (µs)"},
    {"costs.comm", "Transfer time (µs)"},
    {"costs.efficiency", "Achieved share of peak"},
    {"costs.fb", "Overlapped F&B slot (µs)"},
    {"costs.layers", "Per-layer costs (first-last:f:b:w)"},
    {"costs.note", "Where the costs come from"},
    {"costs.slice_costs", "Relative slice costs"},
    {"costs.optimizer_sync", "Optimizer step (flush or post-validation)"},
    {"costs.timing", "Timing (list scheduler or stagecraft-run)"},
};

// Fields read by one cost model only; the others ignore them.
constexpr std::pair<std::string_view, CostMode> kCostModeOnly[] = {
    {"costs.f", CostMode::Manual},
    {"costs.b", CostMode::Manual},
    {"costs.w", CostMode::Manual},
    {"costs.comm", CostMode::Manual},
    {"costs.stages", CostMode::Manual},
    {"costs.layers", CostMode::Manual},
    {"costs.efficiency", CostMode::Analytic},
};

} // namespace

bool hasFieldLabel(std::string_view path) {
    for (const auto& [p, label] : kLabels)
        if (p == path) return true;
    return path == "costs.stages";
}

std::string fieldLabel(const ProjectField& field) {
    if (field.path == "costs.stages") return "Per-stage costs (stage:f:b:w)";
    for (const auto& [path, label] : kLabels)
        if (path == field.path) return std::string(label);
    std::string words(field.key);
    for (char& c : words)
        if (c == '_') c = ' ';
    if (!words.empty() && words[0] >= 'a' && words[0] <= 'z') words[0] = char(words[0] - 'a' + 'A');
    if (!field.unit.empty()) words += " (" + std::string(field.unit) + ")";
    return words;
}

std::string withFieldLabels(std::string_view text) {
    const auto pathChar = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
               c == '.' || c == '[';
    };
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        // The longest dotted path of the table that starts here as a whole word.
        std::string_view best, label;
        if (i == 0 || !pathChar(text[i - 1]))
            for (const auto& [path, words] : kLabels) {
                if (path.find('.') == std::string_view::npos || path.size() <= best.size()) continue;
                if (text.substr(i, path.size()) != path) continue;
                const std::size_t end = i + path.size();
                // A full stop ends the path; a dot before a letter continues it.
                const bool stop = end < text.size() && text[end] == '.' &&
                                  (end + 1 == text.size() || !pathChar(text[end + 1]));
                if (end < text.size() && pathChar(text[end]) && !stop) continue;
                best = path;
                label = words;
            }
        if (best.empty()) {
            out += text[i++];
            continue;
        }
        out += label;
        i += best.size();
    }
    return out;
}

std::optional<std::string> fieldIgnoredReason(const ProjectField& field, const Project& project) {
    // A runtime fit times every schedule itself: what the cost models would add up is unused.
    if (project.runtimeFit && field.section == "costs" && field.path != "costs.note" &&
        field.path != "costs.mode")
        return std::string(field.path) + " is not read while the project's runtime fit (" +
               project.runtimeFit->model +
               ", calibrated from a torch run) times every schedule; drop the fit to use the cost model";
    for (const auto& [path, mode] : kCostModeOnly)
        if (path == field.path && project.costs.mode != mode)
            return std::string(field.path) + " is read only by the " + std::string(costModeName(mode)) +
                   " cost model; costs.mode is " + std::string(costModeName(project.costs.mode));
    return std::nullopt;
}

} // namespace stagecraft
