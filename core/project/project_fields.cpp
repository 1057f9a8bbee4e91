#include "project/project_fields.h"

#include "error.h"
#include "project/field_text.h"
#include "size_limits.h"

#include <array>
#include <cmath>
#include <type_traits>

namespace stagecraft {

namespace {

constexpr std::array<std::string_view, 3> kDTypeChoices{"fp16", "bf16", "fp32"};
constexpr std::array<std::string_view, 3> kRecomputeChoices{"none", "selective", "full"};
constexpr std::array<std::string_view, 3> kCostModeChoices{"analytic", "manual", "unit"};
constexpr std::array<std::string_view, 2> kOptimizerSyncChoices{"flush", "post-validation"};
constexpr std::array<std::string_view, 2> kTimingChoices{"list-scheduler", "stagecraft-run"};
constexpr std::array<std::string_view, 2> kSliceSplitChoices{"uniform", "balanced"};
constexpr std::array<std::string_view, 2> kAttentionChoices{"dense", "causal"};
constexpr std::array<std::string_view, 5> kSections{"model", "cluster", "parallel", "memory", "costs"};
constexpr int kMaxModelLayers = 16384;
constexpr double kMaxNoteBytes = 2000;
constexpr double kMaxRelativeCost = 1e6; // a slice a million times another's is a typo

std::string_view enumText(DType value) {
    return dtypeName(value);
}
std::string_view enumText(Recompute value) {
    return recomputeName(value);
}
std::string_view enumText(CostMode value) {
    return costModeName(value);
}
std::string_view enumText(OptimizerSync value) {
    return optimizerSyncName(value);
}
std::string_view enumText(Timing value) {
    return timingName(value);
}
std::string_view enumText(SliceSplit value) {
    return sliceSplitName(value);
}
std::string_view enumText(Attention value) {
    return attentionName(value);
}

// Accessors are generated from pointers to members, so each table row names its member once.
template <auto Member>
struct TopAccess {
    static FieldValue get(const Project& p) { return FieldValue{p.*Member}; }
    static void set(Project& p, const FieldValue& v) {
        using T = std::remove_cvref_t<decltype(p.*Member)>;
        if (const T* value = std::get_if<T>(&v)) p.*Member = *value;
    }
};

template <auto Section, auto Member>
struct SectionAccess {
    static FieldValue get(const Project& p) { return FieldValue{(p.*Section).*Member}; }
    static void set(Project& p, const FieldValue& v) {
        using T = std::remove_cvref_t<decltype((p.*Section).*Member)>;
        if (const T* value = std::get_if<T>(&v)) (p.*Section).*Member = *value;
    }
};

// Enums are held by their choice name; the enum's values are 0..choices-1 in choice order.
template <auto Section, auto Member, std::size_t Choices>
struct EnumAccess {
    static FieldValue get(const Project& p) {
        return FieldValue{std::string(enumText((p.*Section).*Member))};
    }
    static void set(Project& p, const FieldValue& v) {
        using E = std::remove_cvref_t<decltype((p.*Section).*Member)>;
        const auto* name = std::get_if<std::string>(&v);
        if (!name) return;
        for (std::size_t i = 0; i < Choices; ++i)
            if (enumText(static_cast<E>(i)) == *name) (p.*Section).*Member = static_cast<E>(i);
    }
};

// A schedule parameter's row: range, default and help are the parameter's own (schedule_params.h).
template <const ScheduleParamField& Row>
struct ScheduleParamAccess {
    static FieldValue get(const Project& p) { return FieldValue{p.parallel.*(Row.member)}; }
    static void set(Project& p, const FieldValue& v) {
        if (const int* value = std::get_if<int>(&v)) p.parallel.*(Row.member) = *value;
    }
};

constexpr std::string_view sectionOf(std::string_view path) {
    const auto dot = path.find('.');
    return dot == std::string_view::npos ? std::string_view{} : path.substr(0, dot);
}
constexpr std::string_view keyOf(std::string_view path) {
    const auto dot = path.find('.');
    return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

template <typename Access>
constexpr ProjectField field(FieldKind kind, std::string_view path, std::string_view unit, double min,
                             double max, bool minExclusive, std::string_view defaultText,
                             std::string_view help, std::span<const std::string_view> choices = {}) {
    return ProjectField{path,         sectionOf(path), keyOf(path), kind, unit,        min,        max,
                        minExclusive, choices,         defaultText, help, Access::get, Access::set};
}

// A field the writer leaves out while it holds its default (see ProjectField::writtenWhenDefault).
constexpr ProjectField writtenWhenSet(ProjectField f) {
    f.writtenWhenDefault = false;
    return f;
}

template <const ScheduleParamField& Row>
constexpr ProjectField scheduleParam() {
    return field<ScheduleParamAccess<Row>>(FieldKind::Int, Row.path, "", Row.min, Row.max, false,
                                           Row.defaultText, Row.help);
}

using P = Project;
using M = ModelConfig;
using C = ClusterConfig;
using L = ParallelConfig;
using Y = MemoryConfig;
using K = CostsConfig;
constexpr auto I = FieldKind::Int;
constexpr auto D = FieldKind::Double;
constexpr bool kOpen = true; // minExclusive: the value must be > min

// Upper bounds are far beyond any real setup; they exist so that a typo (pp: 1000000000) is
// refused with a message instead of exhausting memory in a generator or simulator.
const std::array kFields{
    field<TopAccess<&P::name>>(FieldKind::String, "name", "", 0, 200, false, "Untitled",
                               "project title shown in the window and in exported charts"),
    field<TopAccess<&P::schedules>>(FieldKind::StringList, "schedules", "", 0, 32, false, "",
                                    "registry names of the schedules to compare, in display order"),

    field<SectionAccess<&P::model, &M::layers>>(I, "model.layers", "", 1, kMaxModelLayers, false, "24",
                                                "transformer layers of the whole model"),
    field<SectionAccess<&P::model, &M::hidden>>(I, "model.hidden", "", 1, 1 << 20, false, "2048",
                                                "hidden size h"),
    field<SectionAccess<&P::model, &M::heads>>(I, "model.heads", "", 1, 16384, false, "16",
                                               "attention heads a (hidden must be a multiple)"),
    field<SectionAccess<&P::model, &M::seqLen>>(I, "model.seq_len", "tokens", 1, 1 << 20, false, "2048",
                                                "sequence length s"),
    field<SectionAccess<&P::model, &M::vocab>>(I, "model.vocab", "tokens", 1, 1 << 24, false, "51200",
                                               "vocabulary size V (padded as the framework pads it)"),
    field<SectionAccess<&P::model, &M::microBatchSize>>(I, "model.micro_batch_size", "samples", 1, 1 << 16,
                                                        false, "1", "samples b in one micro-batch"),
    field<EnumAccess<&P::model, &M::dtype, kDTypeChoices.size()>>(
        FieldKind::Enum, "model.dtype", "", 0, 0, false, "bf16",
        "type of weights and activations (fp32 doubles every byte count)", kDTypeChoices),
    writtenWhenSet(field<EnumAccess<&P::model, &M::attention, kAttentionChoices.size()>>(
        FieldKind::Enum, "model.attention", "", 0, 0, false, "dense",
        "what the attention kernels compute (analytic costs): dense (the whole s x s square, masked "
        "after; Megatron's count) or causal (the lower triangle only, as flash attention)",
        kAttentionChoices)),

    field<SectionAccess<&P::cluster, &C::gpu>>(FieldKind::String, "cluster.gpu", "", 1, 64, false,
                                               "A100-80GB", "GPU model, a label for charts"),
    field<SectionAccess<&P::cluster, &C::gpusPerNode>>(I, "cluster.gpus_per_node", "", 1, 1024, false, "8",
                                                       "GPUs in one node (tensor parallelism stays inside)"),
    field<SectionAccess<&P::cluster, &C::nodes>>(I, "cluster.nodes", "", 1, 65536, false, "1", "nodes"),
    field<SectionAccess<&P::cluster, &C::peakTflops>>(D, "cluster.peak_tflops", "TFLOP/s", 0, 1e6, kOpen,
                                                      "312", "dense fp16/bf16 peak of one GPU"),
    field<SectionAccess<&P::cluster, &C::memoryGib>>(D, "cluster.memory_gib", "GiB", 0, 1e6, kOpen, "80",
                                                     "memory of one GPU"),
    field<SectionAccess<&P::cluster, &C::intraNodeGbps>>(D, "cluster.intra_node_gbps", "Gbit/s", 0, 1e7,
                                                         kOpen, "2400",
                                                         "point-to-point bandwidth between GPUs of one node"),
    field<SectionAccess<&P::cluster, &C::interNodeGbps>>(D, "cluster.inter_node_gbps", "Gbit/s", 0, 1e7,
                                                         kOpen, "200",
                                                         "point-to-point bandwidth between nodes, per GPU"),
    field<SectionAccess<&P::cluster, &C::latencyUs>>(D, "cluster.latency_us", "µs", 0, 1e6, false, "5",
                                                     "latency of one point-to-point transfer"),

    scheduleParam<kParamPp>(),
    field<SectionAccess<&P::parallel, &L::dp>>(I, "parallel.dp", "", 1, 65536, false, "1",
                                               "data-parallel replicas of the pipeline"),
    field<SectionAccess<&P::parallel, &L::tp>>(I, "parallel.tp", "", 1, 1024, false, "1",
                                               "tensor-parallel degree (inside one node)"),
    scheduleParam<kParamMicrobatches>(),
    scheduleParam<kParamChunks>(),
    scheduleParam<kParamSlices>(),
    writtenWhenSet(field<EnumAccess<&P::parallel, &L::sliceSplit, kSliceSplitChoices.size()>>(
        FieldKind::Enum, "parallel.slice_split", "", 0, 0, false, "uniform",
        "how sequence slices cut a micro-batch's tokens: uniform (equal tokens; causal attention makes "
        "later slices cost more) or balanced (equal work; earlier slices hold more tokens)",
        kSliceSplitChoices)),

    field<SectionAccess<&P::memory, &Y::limitGib>>(D, "memory.limit_gib", "GiB", 0, 1e6, false, "80",
                                                   "memory budget per GPU; 0 = no limit"),
    writtenWhenSet(field<SectionAccess<&P::memory, &Y::limitMicrobatches>>(
        D, "memory.limit_microbatches", "M_a", 0, 1e6, false, "0",
        "activation budget of a device for zb-auto, in micro-batch activations of a full stage (p: ZB-1p, "
        "2p: ZB-2p); overrides limit_gib when planning; 0 = from limit_gib")),
    field<SectionAccess<&P::memory, &Y::zeroStage>>(I, "memory.zero_stage", "", 0, 3, false, "0",
                                                    "ZeRO stage: 1 shards optimizer state, 2 + gradients, "
                                                    "3 + weights over dp"),
    field<EnumAccess<&P::memory, &Y::recompute, kRecomputeChoices.size()>>(
        FieldKind::Enum, "memory.recompute", "", 0, 0, false, "none",
        "activation recomputation: none, selective (attention) or full (whole layer)", kRecomputeChoices),

    field<EnumAccess<&P::costs, &K::mode, kCostModeChoices.size()>>(
        FieldKind::Enum, "costs.mode", "", 0, 0, false, "analytic",
        "op times: analytic (model and cluster), manual (f, b, w below) or unit (all 1)", kCostModeChoices),
    field<SectionAccess<&P::costs, &K::f>>(D, "costs.f", "µs", 0, kMaxStageCostUs, kOpen, "1000",
                                           "manual: forward of one micro-batch through one full stage"),
    field<SectionAccess<&P::costs, &K::b>>(
        D, "costs.b", "µs", 0, kMaxStageCostUs, false, "1000",
        "manual: input-gradient backward (B) of one micro-batch and stage"),
    field<SectionAccess<&P::costs, &K::w>>(
        D, "costs.w", "µs", 0, kMaxStageCostUs, false, "1000",
        "manual: weight-gradient backward (W) of one micro-batch and stage"),
    field<SectionAccess<&P::costs, &K::comm>>(D, "costs.comm", "µs", 0, kMaxStageCostUs, false, "0",
                                              "manual: time added to every cross-device dependency"),
    field<SectionAccess<&P::costs, &K::efficiency>>(D, "costs.efficiency", "", 0, 1, kOpen, "0.5",
                                                    "analytic: achieved fraction of peak_tflops"),
    field<SectionAccess<&P::costs, &K::stages>>(FieldKind::StageCosts, "costs.stages", "", 0, kMaxDevices,
                                                false, "",
                                                "manual: per-stage overrides of f, b, w (stage:f:b:w,...)"),
    writtenWhenSet(field<EnumAccess<&P::costs, &K::optimizerSync, kOptimizerSyncChoices.size()>>(
        FieldKind::Enum, "costs.optimizer_sync", "", 0, 0, false, "flush",
        "iteration end: flush (all devices wait for the optimizer step) or post-validation (each device "
        "steps eagerly; a flag all-reduce checks it, ZB paper)",
        kOptimizerSyncChoices)),
    writtenWhenSet(field<EnumAccess<&P::costs, &K::timing, kTimingChoices.size()>>(
        FieldKind::Enum, "costs.timing", "", 0, 0, false, "list-scheduler",
        "what times a schedule: list-scheduler (each cross-device dependency waits the transfer time) or "
        "stagecraft-run (the lowered programs as stagecraft-run executes them: receives posted when their "
        "buffer slot is free); a runtime fit takes precedence",
        kTimingChoices)),
    field<SectionAccess<&P::costs, &K::fb>>(
        D, "costs.fb", "µs", 0, kMaxStageCostUs, false, "0",
        "an overlapped forward-backward slot (F and a whole backward of one full stage, as DualPipe's "
        "F&B); 0 = f + b + w"),
    writtenWhenSet(field<SectionAccess<&P::costs, &K::layers>>(
        FieldKind::LayerCosts, "costs.layers", "", 0, kMaxModelLayers, false, "",
        "manual: what ranges of the model's layers cost, in place of f, b, w (first-last:f:b:w,...); a "
        "stage costs the sum over its layers; calibrate writes them")),
    writtenWhenSet(field<SectionAccess<&P::costs, &K::sliceCosts>>(
        FieldKind::NumberList, "costs.slice_costs", "", 0, kMaxSequenceSlices, false, "",
        "what each sequence slice costs relative to the others, in slice order (one per "
        "parallel.slices; measured or a paper's figure); empty = from the model's causal attention")),
    writtenWhenSet(field<SectionAccess<&P::costs, &K::note>>(
        FieldKind::String, "costs.note", "", 0, kMaxNoteBytes, false, "",
        "where the costs come from and the rules that filled in what was not measured (calibrate "
        "writes it)")),
};

bool outOfRange(const ProjectField& f, double v) {
    return !(f.minExclusive ? v > f.min : v >= f.min) || !(v <= f.max);
}

std::string withUnit(const ProjectField& f, const std::string& text) {
    return f.unit.empty() ? text : text + " " + std::string(f.unit);
}

std::string listEntry(const ProjectField& f, std::size_t index) {
    return std::string(f.path) + "[" + std::to_string(index) + "]";
}

std::optional<std::string> countProblem(const ProjectField& f, std::size_t entries) {
    if (double(entries) <= f.max) return std::nullopt;
    return std::string(f.path) + ": " + std::to_string(entries) + " entries; at most " +
           detail::formatNumber(f.max);
}

/// A time of entry `index` outside 0..kMaxStageCostUs µs (`name` is ".f", ".b" ...).
std::optional<std::string> timeProblem(const ProjectField& f, std::size_t index, const char* name,
                                       double value) {
    if (value >= 0 && value <= kMaxStageCostUs) return std::nullopt;
    return listEntry(f, index) + name + " = " + detail::formatNumber(value) + ": must be in 0.." +
           detail::formatNumber(kMaxStageCostUs) + " µs";
}

std::optional<std::string> stageCostsProblem(const ProjectField& f,
                                             const std::vector<StageCostOverride>& stages) {
    if (auto problem = countProblem(f, stages.size())) return problem;
    for (std::size_t i = 0; i < stages.size(); ++i) {
        const StageCostOverride& s = stages[i];
        if (s.stage < 0 || s.stage >= kMaxDevices)
            return listEntry(f, i) + ".stage = " + std::to_string(s.stage) + ": must be in 0.." +
                   std::to_string(kMaxDevices - 1);
        for (const auto& [name, value] : {std::pair{".f", s.f}, std::pair{".b", s.b}, std::pair{".w", s.w}})
            if (auto problem = timeProblem(f, i, name, value)) return problem;
    }
    return std::nullopt;
}

std::optional<std::string> layerCostsProblem(const ProjectField& f,
                                             const std::vector<LayerRangeCost>& ranges) {
    if (auto problem = countProblem(f, ranges.size())) return problem;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const LayerRangeCost& r = ranges[i];
        for (const auto& [name, layer] : {std::pair{".first", r.first}, std::pair{".last", r.last}})
            if (layer < 0 || layer >= kMaxModelLayers)
                return listEntry(f, i) + name + " = " + std::to_string(layer) + ": must be in 0.." +
                       std::to_string(kMaxModelLayers - 1);
        if (r.last < r.first)
            return listEntry(f, i) + ".last = " + std::to_string(r.last) +
                   ": must be >= first = " + std::to_string(r.first) + " (a range holds layers first..last)";
        // A layer that takes no time forward would make a stage cost nothing: refused as costs.f is.
        if (!(r.f > 0 && r.f <= kMaxStageCostUs))
            return listEntry(f, i) + ".f = " + detail::formatNumber(r.f) +
                   ": must be > 0 and <= " + detail::formatNumber(kMaxStageCostUs) + " µs";
        for (const auto& [name, value] : {std::pair{".b", r.b}, std::pair{".w", r.w}})
            if (auto problem = timeProblem(f, i, name, value)) return problem;
    }
    return std::nullopt;
}

/// Relative costs: each finite and > 0 (a slice that costs nothing is not a slice).
std::optional<std::string> numberListProblem(const ProjectField& f, const std::vector<double>& numbers) {
    if (auto problem = countProblem(f, numbers.size())) return problem;
    for (std::size_t i = 0; i < numbers.size(); ++i)
        if (!(std::isfinite(numbers[i]) && numbers[i] > 0 && numbers[i] <= kMaxRelativeCost))
            return listEntry(f, i) + " = " + detail::formatNumber(numbers[i]) +
                   ": must be > 0 and <= " + detail::formatNumber(kMaxRelativeCost);
    return std::nullopt;
}

std::optional<std::string> stringListProblem(const ProjectField& f, const std::vector<std::string>& names) {
    if (auto problem = countProblem(f, names.size())) return problem;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i].empty()) return listEntry(f, i) + " = \"\": must not be empty";
        if (names[i].size() > kMaxScheduleNameLength)
            return listEntry(f, i) + " = " + detail::quoted(names[i]) + ": longer than " +
                   std::to_string(kMaxScheduleNameLength) + " characters";
    }
    return std::nullopt;
}

std::size_t kindIndex(FieldKind kind) {
    switch (kind) {
    case FieldKind::Int:
        return 0;
    case FieldKind::Double:
        return 1;
    case FieldKind::String:
    case FieldKind::Enum:
        return 2;
    case FieldKind::StringList:
        return 3;
    case FieldKind::StageCosts:
        return 4;
    case FieldKind::LayerCosts:
        return 5;
    case FieldKind::NumberList:
        return 6;
    }
    return 0;
}

} // namespace

std::span<const ProjectField> projectFields() {
    return kFields;
}

const ProjectField* findProjectField(std::string_view path) {
    for (const auto& f : kFields)
        if (f.path == path) return &f;
    return nullptr;
}

std::span<const std::string_view> projectSections() {
    return kSections;
}

std::string_view fieldKindName(FieldKind kind) {
    switch (kind) {
    case FieldKind::Int:
        return "int";
    case FieldKind::Double:
        return "number";
    case FieldKind::String:
        return "string";
    case FieldKind::Enum:
        return "enum";
    case FieldKind::StringList:
        return "list of names";
    case FieldKind::StageCosts:
        return "list of stage costs";
    case FieldKind::LayerCosts:
        return "list of layer costs";
    case FieldKind::NumberList:
        return "list of numbers";
    }
    return "?";
}

std::string describeFieldRange(const ProjectField& f) {
    switch (f.kind) {
    case FieldKind::Int:
    case FieldKind::Double:
        if (f.minExclusive)
            return "> " + detail::formatNumber(f.min) + " and <= " + withUnit(f, detail::formatNumber(f.max));
        return detail::formatNumber(f.min) + ".." + withUnit(f, detail::formatNumber(f.max));
    case FieldKind::String:
        return detail::formatNumber(f.min) + ".." + detail::formatNumber(f.max) + " characters";
    case FieldKind::Enum: {
        std::string out = "one of ";
        for (std::size_t i = 0; i < f.choices.size(); ++i) out += (i ? ", " : "") + std::string(f.choices[i]);
        return out;
    }
    case FieldKind::StringList:
    case FieldKind::StageCosts:
    case FieldKind::LayerCosts:
    case FieldKind::NumberList:
        return detail::formatNumber(f.min) + ".." + detail::formatNumber(f.max) + " entries";
    }
    return "";
}

std::optional<std::string> fieldRangeProblem(const ProjectField& f, const FieldValue& value) {
    const std::string path(f.path);
    switch (f.kind) {
    case FieldKind::Int:
        if (const int* v = std::get_if<int>(&value); v && outOfRange(f, *v))
            return path + " = " + std::to_string(*v) + ": must be " + (f.minExclusive ? "" : "in ") +
                   describeFieldRange(f);
        break;
    case FieldKind::Double:
        if (const double* v = std::get_if<double>(&value)) {
            if (!std::isfinite(*v))
                return path + " = " + detail::formatNumber(*v) + ": must be a finite number";
            if (outOfRange(f, *v))
                return path + " = " + detail::formatNumber(*v) + ": must be " +
                       (f.minExclusive ? "" : "in ") + describeFieldRange(f);
        }
        break;
    case FieldKind::String:
        if (const auto* v = std::get_if<std::string>(&value); v && outOfRange(f, double(v->size())))
            return path + " = " + detail::quoted(*v) + ": must have " + describeFieldRange(f);
        break;
    case FieldKind::Enum:
        if (const auto* v = std::get_if<std::string>(&value)) {
            for (const auto choice : f.choices)
                if (choice == *v) return std::nullopt;
            return path + " = " + detail::quoted(*v) + ": must be " + describeFieldRange(f);
        }
        break;
    case FieldKind::StringList:
        if (const auto* v = std::get_if<std::vector<std::string>>(&value)) return stringListProblem(f, *v);
        break;
    case FieldKind::StageCosts:
        if (const auto* v = std::get_if<std::vector<StageCostOverride>>(&value))
            return stageCostsProblem(f, *v);
        break;
    case FieldKind::LayerCosts:
        if (const auto* v = std::get_if<std::vector<LayerRangeCost>>(&value)) return layerCostsProblem(f, *v);
        break;
    case FieldKind::NumberList:
        if (const auto* v = std::get_if<std::vector<double>>(&value)) return numberListProblem(f, *v);
        break;
    }
    return std::nullopt;
}

void setFieldValue(Project& project, const ProjectField& field, const FieldValue& value) {
    FieldValue converted = value;
    // A form or a caller may hand an int to a number field; nothing is lost.
    if (field.kind == FieldKind::Double && std::holds_alternative<int>(value))
        converted = double(std::get<int>(value));
    if (converted.index() != kindIndex(field.kind))
        throw ValidationError("project.type", std::string(field.path),
                              std::string(field.path) + " = " + formatFieldValue(value) +
                                  ": must be of kind " + std::string(fieldKindName(field.kind)));
    if (auto problem = fieldRangeProblem(field, converted))
        throw ValidationError("project.field", std::string(field.path), *problem);
    field.set(project, converted);
}

std::string formatFieldValue(const FieldValue& value) {
    struct Visitor {
        std::string operator()(int v) const { return std::to_string(v); }
        std::string operator()(double v) const { return detail::formatNumber(v); }
        std::string operator()(const std::string& v) const { return v; }
        std::string operator()(const std::vector<std::string>& v) const {
            std::string out;
            for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + v[i];
            return out;
        }
        std::string operator()(const std::vector<StageCostOverride>& v) const {
            std::string out;
            for (std::size_t i = 0; i < v.size(); ++i)
                out += (i ? "," : "") + std::to_string(v[i].stage) + ":" + detail::formatNumber(v[i].f) +
                       ":" + detail::formatNumber(v[i].b) + ":" + detail::formatNumber(v[i].w);
            return out;
        }
        std::string operator()(const std::vector<double>& v) const {
            std::string out;
            for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + detail::formatNumber(v[i]);
            return out;
        }
        std::string operator()(const std::vector<LayerRangeCost>& v) const {
            std::string out;
            for (std::size_t i = 0; i < v.size(); ++i)
                out += (i ? "," : "") + std::to_string(v[i].first) + "-" + std::to_string(v[i].last) + ":" +
                       detail::formatNumber(v[i].f) + ":" + detail::formatNumber(v[i].b) + ":" +
                       detail::formatNumber(v[i].w);
            return out;
        }
    };
    return std::visit(Visitor{}, value);
}

} // namespace stagecraft
