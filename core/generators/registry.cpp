#include "generators/registry.h"

#include "error.h"
#include "generators/generators.h"
#include "generators/zb_auto.h"
#include "generators/zb_v_family.h"
#include "size_limits.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cmath>
#include <sstream>
#include <utility>

namespace stagecraft {

namespace {

// A generator's view of a parameter: the parameter's own row, optionally with a narrower minimum.
constexpr ParamSpec spec(const ScheduleParamField& row, int min, std::string_view help) {
    return ParamSpec{row.name, row.path, min, row.max, row.defaultValue, help, &row};
}
constexpr ParamSpec spec(const ScheduleParamField& row) {
    return spec(row, row.min, row.help);
}

constexpr ParamSpec kPp = spec(kParamPp);
constexpr ParamSpec kPpEven = spec(kParamPp, 2, "pipeline devices p (even)");
constexpr ParamSpec kMicrobatches = spec(kParamMicrobatches);
constexpr ParamSpec kChunks = spec(kParamChunks);
constexpr ParamSpec kChunksInterleaved = spec(kParamChunks, 2, "model chunks v per device (>= 2)");
constexpr ParamSpec kChunksWaves = spec(kParamChunks, 2, "chunks per device, two per wave (even)");

constexpr ParamSpec kSlices = spec(kParamSlices);

constexpr std::array kPlainParams{kPp, kMicrobatches};
constexpr std::array kSlicedParams{kPp, kMicrobatches, kSlices};
constexpr std::array kSlicedInterleavedParams{kPp, kMicrobatches, kChunksInterleaved, kSlices};
constexpr std::array kEvenParams{kPpEven, kMicrobatches};
constexpr std::array kInterleavedParams{kPp, kMicrobatches, kChunksInterleaved};
constexpr std::array kLoopedParams{kPp, kMicrobatches, kChunks};
constexpr std::array kWaveParams{kPp, kMicrobatches, kChunksWaves};

// Most orders depend on the parameters alone; they are written as functions of ScheduleParams and
// registered through this adapter.
template <Schedule (*Generate)(const ScheduleParams&)>
Schedule fromParams(const GenerateRequest& request) {
    return Generate(request.params);
}

int stagesOne(const ScheduleParams& p) {
    return p.pp;
}
int stagesChunks(const ScheduleParams& p) {
    return p.pp * p.chunks;
}
int stagesDouble(const ScheduleParams& p) {
    return 2 * p.pp;
}

const std::array kGenerators{
    GeneratorInfo{
        "gpipe", "GPipe",
        "All forwards, then all backwards (fill-drain); activations of all m micro-batches are alive.",
        "none", kPlainParams, false, 1, false, stagesOne, gen::checkGpipe, fromParams<gen::gpipe>},
    GeneratorInfo{
        "1f1b", "1F1B (PipeDream-Flush)",
        "Warm-up of p-r-1 forwards, then one forward one backward; at most p-r micro-batches in flight.",
        "none", kPlainParams, false, 1, false, stagesOne, gen::check1f1b, fromParams<gen::oneFOneB>},
    GeneratorInfo{"1f1b-recompute", "1F1B with full recompute (R before every B)",
                  "1F1B whose forwards keep only their stage input; a recompute R re-runs each forward "
                  "right before its backward: one micro-batch's activations per device, at the cost of "
                  "an extra forward where the warm-up does not hide it.",
                  "none", kPlainParams, false, 1, false, stagesOne, gen::check1f1bRecompute,
                  fromParams<gen::oneFOneBRecompute>, true},
    GeneratorInfo{"interleaved", "Interleaved 1F1B (Megatron depth-first)",
                  "Each device holds v looped chunks; bubble shrinks by v at v times the p2p traffic.",
                  "chunks >= 2; microbatches % max(1, microbatches / pp) == 0 (equal rounds, torch's rule)",
                  kInterleavedParams, false, 1, false, stagesChunks, gen::checkInterleaved,
                  fromParams<gen::interleaved>},
    GeneratorInfo{
        "breadth-first", "Breadth-first (looped BFS)",
        "Each device holds v looped chunks and runs every micro-batch of a chunk before the next chunk.",
        "none (microbatches >= pp avoids extra bubbles)", kLoopedParams, false, 1, false, stagesChunks,
        gen::checkBreadthFirst, fromParams<gen::breadthFirst>},
    GeneratorInfo{
        "chimera", "Chimera",
        "Two pipelines in opposite directions over the same devices, each device holding two replicas.",
        "pp even; microbatches % pp == 0", kEvenParams, false, 2, false, stagesOne, gen::checkChimera,
        fromParams<gen::chimera>},
    GeneratorInfo{
        "bitpipe", "BitPipe",
        "Bidirectional and V-shaped interleaved pipelines: four half-stage chunks per device, eager "
        "gradient sync.",
        "pp even; microbatches % pp == 0", kEvenParams, false, 2, false, stagesDouble, gen::checkBitpipe,
        fromParams<gen::bitpipe>},
    GeneratorInfo{"bitpipe-figure", "BitPipe (the paper's figure order)",
                  "BitPipe with the next unit's first backward after one more forward where units meet, "
                  "as the paper's concatenation figure draws it (the code's order is `bitpipe`).",
                  "pp even; microbatches % pp == 0", kEvenParams, false, 2, false, stagesDouble,
                  gen::checkBitpipe, fromParams<gen::bitpipeFigure>},
    GeneratorInfo{"hanayo", "Hanayo (wave-like, elf's order)",
                  "Waves of V-shaped chunks zig-zagging over the devices, no model copies; the order of "
                  "the public third-party implementation, not checked against the paper.",
                  "chunks even (waves = chunks / 2)", kWaveParams, false, 1, false, stagesChunks,
                  gen::checkHanayo, fromParams<gen::hanayo>},
    GeneratorInfo{"zb-h1", "ZB-H1 (zero bubble, 1F1B memory)",
                  "1F1B with the backward split into B and W; W fills the cool-down bubble.", "none",
                  kPlainParams, true, 1, false, stagesOne, gen::checkZbH1, fromParams<gen::zbH1>},
    GeneratorInfo{
        "zb-h2", "ZB-H2 (zero bubble, 2x memory)",
        "More warm-up forwards and W reordered at the tail: no bubble once the optimizer sync is gone.",
        "microbatches >= 2 * pp", kPlainParams, true, 1, false, stagesOne, gen::checkZbH2,
        fromParams<gen::zbH2>},
    GeneratorInfo{"zb-v", "ZB-V (V-shaped zero bubble)",
                  "Two chunks per device in a V; zero bubble at 1F1B's activation memory when F, B, W take "
                  "equal time.",
                  "none", kPlainParams, true, 1, true, stagesDouble, gen::checkZbV, gen::zbVForCosts},
    GeneratorInfo{"v-1f1b", "V-1F1B (ZB-V's placement, whole backward)",
                  "The zero-bubble repository's V without the W split: two chunks per device in a V, "
                  "whole backwards, about 3/4 of 1F1B's activation memory on the first device.",
                  "pp >= 2", kPlainParams, false, 1, false, stagesDouble, gen::checkV1f1b,
                  fromParams<gen::v1f1b>},
    GeneratorInfo{"zb-v-half", "V-Half (ZB-V at half the memory)",
                  "ZB-V's placement from a building block whose micro-batches live half as long: about half "
                  "of 1F1B's activation memory for about half of its bubble.",
                  "none", kPlainParams, true, 1, false, stagesDouble, gen::checkZbVHalf,
                  fromParams<gen::zbVHalf>},
    GeneratorInfo{"zb-v-min", "V-Min (ZB-V at a third of the memory)",
                  "ZB-V's placement from the building block with the shortest lifespan: about a third of "
                  "1F1B's activation memory, bubble about two thirds of 1F1B's.",
                  "none", kPlainParams, true, 1, false, stagesDouble, gen::checkZbVMin,
                  fromParams<gen::zbVMin>},
    GeneratorInfo{"zb-auto", "ZB auto (ZB-1p / ZB-2p under a memory limit)",
                  "The zero-bubble paper's automatic scheduler, searched: the F/B/W order with the smallest "
                  "per-device span for the stage costs under the activation-memory limit.",
                  "memory limit >= 1 activation (memory.limit_microbatches or memory.limit_gib)",
                  kPlainParams, true, 1, true, stagesOne, gen::checkZbAuto, gen::zbAuto},
    GeneratorInfo{"interleaved-zb", "Interleaved zero bubble (torch)",
                  "torch's ScheduleInterleavedZeroBubble: interleaved 1F1B with the backward split, W ops "
                  "delayed into the bubbles and idle steps inserted where a dependency is not ready.",
                  "chunks >= 2", kInterleavedParams, true, 1, false, stagesChunks, gen::checkInterleavedZb,
                  fromParams<gen::interleavedZb>},
    GeneratorInfo{"dualpipe", "DualPipe (DeepSeek)",
                  "Two pipelines in opposite directions, each device holding two stage replicas; a "
                  "forward of one direction overlaps a whole backward of the other in one F&B slot.",
                  "pp even; microbatches even and >= 2 * pp", kEvenParams, true, 2, false, stagesOne,
                  gen::checkDualPipe, fromParams<gen::dualPipe>},
    GeneratorInfo{"dualpipev", "DualPipeV (DeepSeek, cut in half)",
                  "DualPipe folded into a V over 2p stages: every micro-batch enters and leaves at device 0; "
                  "forward and whole backward of the two chunks overlap in F&B slots.",
                  "microbatches >= 2 * pp", kPlainParams, true, 1, false, stagesDouble, gen::checkDualPipeV,
                  fromParams<gen::dualPipeV>},
    GeneratorInfo{"seq1f1b", "Seq1F1B (1F1B over sequence slices)",
                  "Every micro-batch cut into k slices along the sequence, run through 1F1B slice by slice "
                  "(forwards in slice order, backwards in reverse): the bubble and the activations in "
                  "flight shrink by about k.",
                  "none (a slice's cost follows its position: parallel.slice_split, costs.slice_costs)",
                  kSlicedParams, false, 1, false, stagesOne, gen::checkSeq1f1b, fromParams<gen::seq1f1b>},
    GeneratorInfo{"seq1f1b-i", "Seq1F1B-I (interleaved 1F1B over sequence slices)",
                  "Seq1F1B's slices through interleaved 1F1B's chunks, as the authors' code runs them: "
                  "slice units take the micro-batches' place in Megatron's lookup, k - 1 more warm-up "
                  "forwards, backwards slice by slice in reverse.",
                  "chunks >= 2; microbatches % pp == 0; pp % slices == 0", kSlicedInterleavedParams, false, 1,
                  false, stagesChunks, gen::checkSeq1f1bInterleaved, fromParams<gen::seq1f1bInterleaved>},
    GeneratorInfo{"terapipe", "TeraPipe (GPipe over token slices)",
                  "Every micro-batch cut into k token slices, run GPipe-style: all forwards in slice order, "
                  "then all backwards in reverse. Seq1F1B's bubble, GPipe's memory (every slice in flight).",
                  "none (a slice's cost follows its position: parallel.slice_split, costs.slice_costs)",
                  kSlicedParams, false, 1, false, stagesOne, gen::checkTerapipe, fromParams<gen::terapipe>},
};

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

void checkRange(const ParamSpec& spec, int value, std::string_view schedule) {
    if (value < spec.min || value > spec.max)
        throw ValidationError("generator.range", std::string(spec.field),
                              std::string(spec.field) + " = " + std::to_string(value) + ": " +
                                  std::string(schedule) + " needs " + std::string(spec.name) + " in " +
                                  std::to_string(spec.min) + ".." + std::to_string(spec.max));
}

std::string formatDouble(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

} // namespace

std::span<const ScheduleParamField> scheduleParamFields() {
    static constexpr std::array kRows{kParamPp, kParamMicrobatches, kParamChunks, kParamSlices};
    return kRows;
}

bool readsParam(const GeneratorInfo& info, const ScheduleParamField& param) {
    return std::any_of(info.params.begin(), info.params.end(),
                       // By member: a row of scheduleParamFields() is a copy of the kParam* constant.
                       [&](const ParamSpec& s) { return s.param->member == param.member; });
}

double computeOpCount(const GeneratorInfo& info, const ScheduleParams& params) {
    const int units = params.microbatches * (readsParam(info, kParamSlices) ? params.slices : 1);
    return double(info.stagesPerPipe(params)) * std::max(units, 1) * opsPerStageMicrobatch(info);
}

std::span<const GeneratorInfo> generators() {
    return kGenerators;
}

const GeneratorInfo* tryFindGenerator(std::string_view name) {
    const std::string wanted = lower(name);
    for (const auto& info : kGenerators)
        if (info.name == wanted) return &info;
    return nullptr;
}

const GeneratorInfo& findGenerator(std::string_view name) {
    if (const GeneratorInfo* info = tryFindGenerator(name)) return *info;
    std::string valid;
    for (const auto& info : kGenerators) valid += (valid.empty() ? "" : ", ") + std::string(info.name);
    throw ValidationError("schedule.unknown", "schedule",
                          "unknown schedule '" + std::string(name) + "'; valid names: " + valid);
}

namespace {
std::atomic<std::uint64_t> g_paramChecks{0};
} // namespace

std::uint64_t paramCheckCount() {
    return g_paramChecks.load(std::memory_order_relaxed);
}

void checkParams(const GeneratorInfo& info, const ScheduleParams& params) {
    g_paramChecks.fetch_add(1, std::memory_order_relaxed);
    checkRange(kPp, params.pp, info.name);
    checkRange(kMicrobatches, params.microbatches, info.name);
    for (const auto& spec : info.params) checkRange(spec, params.*(spec.param->member), info.name);
    const double ops = computeOpCount(info, params);
    if (ops > double(kMaxOps))
        throw ValidationError("generator.range", "parallel.microbatches",
                              std::string(info.name) + " with pp = " + std::to_string(params.pp) +
                                  " and microbatches = " + std::to_string(params.microbatches) +
                                  " would have " + std::to_string(static_cast<long long>(ops)) +
                                  " ops, more than the limit of " + std::to_string(kMaxOps));
    info.check(params);
}

std::optional<std::string> constraintViolation(const GeneratorInfo& info, const ScheduleParams& params) {
    try {
        checkParams(info, params);
    } catch (const ValidationError& e) {
        return e.message();
    }
    return std::nullopt;
}

StageCost GenerateRequest::cost(int stage) const {
    return stageCosts.empty() ? StageCost{} : stageCosts[std::size_t(stage)];
}

void checkRequest(const GeneratorInfo& info, const GenerateRequest& request) {
    const std::string schedule(info.name);
    if (!request.stageCosts.empty()) {
        const int stages = info.stagesPerPipe(request.params);
        if (request.stageCosts.size() != std::size_t(stages))
            throw ValidationError("generator.costs", "costs",
                                  schedule + " has " + std::to_string(stages) + " stages per pipe but " +
                                      std::to_string(request.stageCosts.size()) +
                                      " stage costs were given: give one per stage, or none for unit costs");
        for (std::size_t s = 0; s < request.stageCosts.size(); ++s) {
            const StageCost& c = request.stageCosts[s];
            for (const auto& [part, value] : {std::pair{"f", c.f}, std::pair{"b", c.b}, std::pair{"w", c.w}})
                if (!std::isfinite(value) || value <= 0)
                    throw ValidationError("generator.costs", "costs",
                                          "stage " + std::to_string(s) + " " + part + " = " +
                                              formatDouble(value) + ": " + schedule +
                                              " plans with op costs that are finite and > 0");
        }
    }
    if (!std::isfinite(request.comm) || request.comm < 0)
        throw ValidationError("generator.costs", "costs.comm",
                              "comm = " + formatDouble(request.comm) +
                                  ": a transfer time must be finite and >= 0");
    if (!std::isfinite(request.memoryLimit) || request.memoryLimit < 0)
        throw ValidationError("generator.memory", "memory",
                              "memory limit = " + formatDouble(request.memoryLimit) +
                                  " activations: must be finite and >= 0 (0: no limit)");
}

ScheduleParams effectiveParams(const GeneratorInfo& info, const ScheduleParams& params) {
    ScheduleParams effective = params;
    if (!readsParam(info, kParamChunks)) effective.chunks = 1; // ignored by this schedule
    if (!readsParam(info, kParamSlices)) effective.slices = 1;
    return effective;
}

Schedule generateSchedule(const GeneratorInfo& info, const GenerateRequest& request) {
    GenerateRequest effective = request;
    effective.params = effectiveParams(info, request.params);
    checkParams(info, effective.params);
    checkRequest(info, effective);
    return info.generate(effective);
}

Schedule generateChecked(const GeneratorInfo& info, const GenerateRequest& request) {
    return info.generate(request);
}

Schedule generateSchedule(std::string_view name, const ScheduleParams& params) {
    return generateSchedule(findGenerator(name), GenerateRequest{params, {}, 0, 0});
}

namespace gen {

void requireEvenPp(std::string_view schedule, const ScheduleParams& p) {
    if (p.pp % 2 != 0)
        throw ValidationError("generator.constraint", "parallel.pp",
                              "parallel.pp = " + std::to_string(p.pp) + ": " + std::string(schedule) +
                                  " runs two pipelines in opposite directions and needs an even pp");
}

void requireMicrobatchesMultipleOfPp(std::string_view schedule, const ScheduleParams& p) {
    if (p.microbatches % p.pp != 0)
        throw ValidationError("generator.constraint", "parallel.microbatches",
                              "parallel.microbatches = " + std::to_string(p.microbatches) + ": " +
                                  std::string(schedule) +
                                  " needs microbatches % pp == 0 (pp = " + std::to_string(p.pp) + ")");
}

} // namespace gen

} // namespace stagecraft
