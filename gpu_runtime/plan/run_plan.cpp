#include "plan/run_plan.h"

#include "error.h"
#include "eval/evaluation_input.h"
#include "io/schedule_file.h"
#include "ir/action.h"
#include "passes/lower.h"
#include "project/layer_split.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

namespace stagecraft::runtime {
namespace {

/// The op's identity (ir/op.h) from an instruction's fields.
std::uint64_t opKey(OpKind kind, int pipe, int stage, int mb) {
    return opIdentity(Op{kind, std::uint8_t(pipe), 0, stage, mb});
}

std::uint64_t bufferKey(int pipe, int stage, int mb) {
    return (std::uint64_t(pipe) << 56) | (std::uint64_t(std::uint32_t(stage)) << 28) |
           std::uint64_t(std::uint32_t(mb));
}

/// torch's profiler names: "PP:" + the action string ("2F0", "0SEND_F1", "0REDUCE_GRAD").
std::string labelOf(const Lowered& lowered, const Instruction& in) {
    const bool splitBackward = lowered.splitBackward;
    const std::string pipe = in.pipe != 0 ? "p" + std::to_string(in.pipe) + ":" : "";
    switch (in.kind) {
    case InstrKind::Compute:
        return "PP:" + actionString(lowered.opOf(in), splitBackward);
    case InstrKind::Send:
    case InstrKind::Recv:
        return "PP:" + pipe + std::to_string(in.stage) + transferName(in.kind, in.dir) +
               std::to_string(in.mb);
    case InstrKind::GradSync:
        return "PP:" + pipe + std::to_string(in.stage) + "REDUCE_GRAD";
    case InstrKind::Optimizer:
        return "PP:" + pipe + std::to_string(in.stage) + "OPTIMIZER";
    case InstrKind::Wait:
        return "PP:" + pipe + std::to_string(in.stage) + "WAIT";
    case InstrKind::Unshard:
        return "PP:" + pipe + std::to_string(in.stage) + "UNSHARD";
    case InstrKind::Reshard:
        return "PP:" + pipe + std::to_string(in.stage) + "RESHARD";
    }
    return "PP:?";
}

/// The lowering's rule (core/passes/annotate.cpp): every compute op and every transfer (or wait on
/// one) of a micro-batch uses its stage's buffer, except the input gradient a SEND_B sends, which
/// is the backward's own output.
bool usesSlot(const Instruction& in) {
    if (in.mb < 0) return false;
    const bool transfer =
        in.kind == InstrKind::Send || in.kind == InstrKind::Recv ||
        (in.kind == InstrKind::Wait && (in.waits == InstrKind::Send || in.waits == InstrKind::Recv));
    const bool sendsGradient =
        in.dir == Direction::B &&
        (in.kind == InstrKind::Send || (in.kind == InstrKind::Wait && in.waits == InstrKind::Send));
    return in.kind == InstrKind::Compute || (transfer && !sendsGradient);
}

bool isGradientSend(const Instruction& in) {
    return in.kind == InstrKind::Send && in.dir == Direction::B && in.mb >= 0;
}

} // namespace

const char* workloadName(Workload workload) {
    return workload == Workload::Model ? "model" : "sleep";
}

Project scaledProject(Project project, double scale) {
    if (!(scale > 0 && scale <= 1))
        throw ValidationError("runtime.scale", "--scale",
                              "--scale = " + std::to_string(scale) + ": the scale must be in (0, 1]");
    if (scale == 1) return project;
    ModelConfig& m = project.model;
    const auto scaled = [scale](int value) { return std::max(1, int(std::lround(double(value) * scale))); };
    m.hidden = std::max(m.heads, scaled(m.hidden) / m.heads * m.heads);
    m.seqLen = scaled(m.seqLen);
    m.vocab = scaled(m.vocab);
    return project;
}

StageShape stageShape(const Project& project, const Schedule& schedule, int stage) {
    const std::vector<int> split = splitLayers(project.model.layers, schedule.stagesPerPipe);
    StageShape s;
    // An imported order may not split the layers; its stages then share them as evenly as whole
    // layers allow (at least one each).
    s.layers = split.empty() ? std::max(1, project.model.layers / std::max(1, schedule.stagesPerPipe))
                             : split[std::size_t(stage)];
    s.hidden = project.model.hidden;
    s.heads = project.model.heads;
    s.seqLen = project.model.seqLen;
    s.microBatch = project.model.microBatchSize;
    s.vocab = stage + 1 == schedule.stagesPerPipe ? project.model.vocab : 0;
    return s;
}

RunPlan makeRunPlan(const RunRequest& request) {
    EvaluationInput input;
    input.sets = request.sets;
    if (request.scheduleFile.empty()) {
        input.path = request.projectPath;
        input.schedules = {request.schedule};
    } else {
        // Core's own reading of a schedule file (the one every command uses): torch's CSV or
        // Stagecraft JSON, validated, on the project's costs. A file that is not a schedule file
        // (missing, a project, a trace, another extension) is refused by the reader, naming it.
        if (!isScheduleFile(request.scheduleFile)) (void)readScheduleFile(request.scheduleFile);
        if (!isScheduleFile(request.scheduleFile))
            throw ValidationError("io.kind", request.scheduleFile,
                                  "'" + request.scheduleFile + "' is not a schedule file");
        input.path = request.scheduleFile;
        input.projectPath = request.projectPath;
        if (!request.schedule.empty()) input.schedules = {request.schedule}; // refused by core
    }
    AnalysisRequest analysis = loadAnalysisRequest(input);
    analysis.project = scaledProject(std::move(analysis.project), request.scale);
    const Project& project = analysis.project;
    if (project.parallel.tp != 1)
        throw ValidationError("runtime.tp", "parallel.tp",
                              "parallel.tp = " + std::to_string(project.parallel.tp) +
                                  ": stagecraft-run runs one pipeline rank per device; set parallel.tp=1");
    if (request.workload == Workload::Sleep && project.costs.mode == CostMode::Unit)
        throw ValidationError(
            "runtime.costs", "costs.mode",
            "costs.mode = unit: the sleep workload waits each op's predicted time in µs, "
            "and unit costs have no µs; use costs.mode=manual (costs.f/b/w in µs) or analytic");

    AnalysisResult result = analyze(analysis);
    if (!result.refusals.empty()) {
        const ScheduleRefusal& r = result.refusals.front();
        throw ValidationError(r.id, r.field, r.message);
    }
    RunPlan plan;
    plan.project = project;
    plan.schedule = result.outcomes.front().name; // a registered name, or the file's schedule
    plan.workload = request.workload;
    plan.prediction = std::move(result.outcomes.front().prediction);

    const Schedule& schedule = plan.prediction.schedule;
    plan.boundaryElements = std::uint64_t(project.model.seqLen) *
                            std::uint64_t(project.model.microBatchSize) * std::uint64_t(project.model.hidden);
    LowerOptions options;
    const auto bytes = std::uint64_t(double(plan.boundaryElements) * dtypeBytes(project.model.dtype));
    options.boundaryBytes.assign(std::size_t(std::max(0, schedule.stagesPerPipe - 1)), bytes);
    plan.lowered = lower(schedule, options);
    return plan;
}

RankPlan replicaRankPlan(const RunPlan& plan, int worldRank, int replicas) {
    const int ranks = plan.lowered.ranks;
    if (replicas < 1 || worldRank < 0 || worldRank >= ranks * replicas)
        throw std::logic_error("replicaRankPlan: rank " + std::to_string(worldRank) + " of " +
                               std::to_string(replicas) + " replicas of " + std::to_string(ranks) + " ranks");
    RankPlan out = makeRankPlan(plan, worldRank % ranks);
    const int base = worldRank / ranks * ranks;
    out.rank = worldRank;
    for (Step& s : out.steps)
        if (s.instr.kind == InstrKind::Send || s.instr.kind == InstrKind::Recv) s.instr.peer += base;
    for (int& peer : out.peers) peer += base;
    return out;
}

std::vector<std::vector<int>> replicaCollectives(const Lowered& lowered, int replicas) {
    std::vector<std::vector<int>> out;
    for (const Collective& c : lowered.collectives) {
        std::vector<int> ranks;
        for (int k = 0; k < replicas; ++k)
            for (const int r : c.ranks) ranks.push_back(k * lowered.ranks + r);
        std::sort(ranks.begin(), ranks.end());
        out.push_back(std::move(ranks));
    }
    return out;
}

std::uint64_t activationElements(const RunPlan& plan, const StageShape& shape) {
    if (plan.workload == Workload::Sleep) return std::max<std::uint64_t>(plan.boundaryElements, 1) * 2;
    return activationLayout(shape).elements;
}

RankPlan makeRankPlan(const RunPlan& plan, int rank) {
    const Lowered& lowered = plan.lowered;
    const Schedule& schedule = plan.prediction.schedule;
    const std::vector<Instruction>& program = lowered.programs.at(std::size_t(rank)).instructions;

    // Predicted duration of every op of this rank (the sleep workload waits that long).
    std::unordered_map<std::uint64_t, double> duration;
    for (const TimelineEvent& e : plan.prediction.timeline.events) {
        if (e.device != rank || (e.lane == Lane::Comm && e.comm != CommKind::Collective)) continue;
        duration[opKey(e.op.kind, e.op.pipe, e.op.stage, e.op.mb)] = e.duration();
    }

    RankPlan out;
    out.rank = rank;
    out.steps.resize(program.size());
    std::unordered_map<std::uint64_t, std::int32_t> keyOf;
    std::unordered_map<std::uint64_t, std::int32_t> stageOf;          // (pipe, stage) -> index into stages
    std::unordered_map<std::uint64_t, std::int32_t> receiveOf;        // (dir, pipe, stage, mb) -> instruction
    std::unordered_map<std::uint64_t, std::int32_t> gradSyncOf;       // (pipe, stage) -> instruction
    std::unordered_map<std::uint64_t, std::int32_t> gradientProducer; // (pipe, stage, mb) -> its B
    std::unordered_map<std::uint64_t, std::int32_t> sentGradients;    // (pipe, stage, mb) with a SEND_B
    std::unordered_map<std::uint64_t, std::int32_t> computeOf; // (kind, pipe, stage, mb) -> instruction
    for (const Instruction& in : program)
        if (isGradientSend(in)) sentGradients.emplace(bufferKey(in.pipe, in.stage, in.mb), 0);

    // Last use of every key, so that its slot goes back to the free list after it (after its
    // group: the group's transfers are in flight together).
    std::vector<std::int32_t> lastUse;
    for (std::size_t i = 0; i < program.size(); ++i) {
        const Instruction& in = program[i];
        if (!usesSlot(in)) continue;
        const auto [it, fresh] =
            keyOf.emplace(bufferKey(in.pipe, in.stage, in.mb), std::int32_t(lastUse.size()));
        if (fresh) lastUse.push_back(-1);
        lastUse[std::size_t(it->second)] = std::int32_t(i);
    }
    std::vector<std::int32_t> slotOfKey(lastUse.size(), -1), takenAt(lastUse.size(), -1);
    std::vector<std::int32_t> freeSlots, freeSince, deferred;
    std::int32_t gradientsHeld = 0, mostGradientsHeld = 0;

    for (std::size_t i = 0; i < program.size(); ++i) {
        const Instruction& in = program[i];
        Step& step = out.steps[i];
        step.instr = in;
        step.label = labelOf(lowered, in);
        const std::uint64_t stageKey = std::uint64_t(in.pipe) << 32 | std::uint32_t(in.stage);
        if (in.kind == InstrKind::Compute || in.kind == InstrKind::GradSync ||
            in.kind == InstrKind::Optimizer || in.kind == InstrKind::Send || in.kind == InstrKind::Recv ||
            usesSlot(in)) {
            auto [it, fresh] = stageOf.emplace(stageKey, std::int32_t(out.stages.size()));
            if (fresh)
                out.stages.push_back({in.pipe, in.stage, stageShape(plan.project, schedule, in.stage)});
            step.shape = it->second;
        }
        const std::uint64_t bk = bufferKey(in.pipe, in.stage, in.mb);
        if (usesSlot(in)) {
            const std::int32_t key = keyOf.at(bk);
            step.key = key;
            if (slotOfKey[std::size_t(key)] < 0) {
                std::int32_t slot;
                if (freeSlots.empty()) {
                    slot = out.slots++;
                    freeSince.push_back(0);
                } else {
                    slot = freeSlots.back();
                    freeSlots.pop_back();
                }
                slotOfKey[std::size_t(key)] = slot;
                takenAt[std::size_t(key)] = std::int32_t(i);
                step.take = true;
                if (in.kind == InstrKind::Recv) step.postFrom = freeSince[std::size_t(slot)];
            } else if (in.kind == InstrKind::Recv) {
                step.postFrom = takenAt[std::size_t(key)] + 1; // into the buffer its micro-batch holds
            }
            step.slot = slotOfKey[std::size_t(key)];
            if (lastUse[std::size_t(key)] == std::int32_t(i)) {
                step.giveBack = true;
                deferred.push_back(key);
            }
        }
        if (in.kind == InstrKind::Send) {
            out.sendsInOrder.push_back(std::int32_t(i));
            // Its tensor is ready after the compute that produced it on this rank.
            const auto producer = computeOf.find(
                opKey(in.dir == Direction::F ? OpKind::F : OpKind::B, in.pipe, in.stage, in.mb));
            step.postFrom = producer == computeOf.end() ? std::int32_t(i) : producer->second + 1;
        }
        if (in.kind == InstrKind::Compute)
            computeOf[opKey(in.op, in.pipe, in.stage, in.mb)] = std::int32_t(i);
        if (in.kind == InstrKind::Send || in.kind == InstrKind::Recv) {
            out.peers.push_back(in.peer);
            if (in.kind == InstrKind::Recv) {
                receiveOf[bk << 1 | std::uint64_t(in.dir)] = std::int32_t(i);
                out.receivesInOrder.push_back(std::int32_t(i));
            }
        }
        switch (in.kind) {
        case InstrKind::Compute: {
            if (in.op != OpKind::W) {
                const auto dir = in.op == OpKind::F ? Direction::F : Direction::B;
                const auto r = receiveOf.find(bk << 1 | std::uint64_t(dir));
                if (r != receiveOf.end()) step.after.push_back(r->second);
            }
            if (in.op == OpKind::B && sentGradients.count(bk)) {
                step.producesSentGradient = true;
                gradientProducer[bk] = std::int32_t(i);
                mostGradientsHeld = std::max(mostGradientsHeld, ++gradientsHeld);
            }
            const auto d = duration.find(opKey(in.op, in.pipe, in.stage, in.mb));
            step.sleepUs = d == duration.end() ? 0.0 : d->second;
            break;
        }
        case InstrKind::Send:
            if (isGradientSend(in)) {
                const auto producer = gradientProducer.find(bk);
                if (producer == gradientProducer.end())
                    throw std::logic_error("makeRankPlan: " + step.label + " on rank " +
                                           std::to_string(rank) +
                                           " sends a gradient no earlier B of this rank produced");
                step.gradientOf = producer->second;
                --gradientsHeld;
            }
            break;
        case InstrKind::GradSync:
            gradSyncOf[stageKey] = std::int32_t(i);
            break;
        case InstrKind::Optimizer: {
            const auto s = gradSyncOf.find(stageKey);
            if (s != gradSyncOf.end()) step.after.push_back(s->second);
            const auto d = duration.find(opKey(OpKind::Optimizer, in.pipe, in.stage, -1));
            step.sleepUs = d == duration.end() ? 0.0 : d->second;
            break;
        }
        case InstrKind::Wait:
            if (in.ref >= 0) step.after.push_back(in.ref);
            break;
        default:
            break;
        }
        const bool groupGoesOn = in.group >= 0 && i + 1 < program.size() && program[i + 1].group == in.group;
        if (groupGoesOn) continue;
        for (const std::int32_t key : deferred) {
            const std::int32_t slot = slotOfKey[std::size_t(key)];
            freeSlots.push_back(slot);
            freeSince[std::size_t(slot)] = std::int32_t(i) + 1;
        }
        deferred.clear();
    }
    out.keys = std::int32_t(lastUse.size());
    const int planned = lowered.peakBuffers.empty() ? out.slots : lowered.peakBuffers.at(std::size_t(rank));
    if (out.slots != planned)
        throw std::logic_error("makeRankPlan: rank " + std::to_string(rank) + " needs " +
                               std::to_string(out.slots) + " activation slots where the lowering counted " +
                               std::to_string(planned));
    for (const LocalStage& s : out.stages)
        out.slotElements = std::max(out.slotElements, activationElements(plan, s.shape));
    out.gradientBuffers = mostGradientsHeld > 0 ? mostGradientsHeld + 1 : 0;
    std::sort(out.peers.begin(), out.peers.end());
    out.peers.erase(std::unique(out.peers.begin(), out.peers.end()), out.peers.end());
    return out;
}

} // namespace stagecraft::runtime
