#include "plan/run_plan.h"

#include "error.h"
#include "eval/evaluation_input.h"
#include "ir/action.h"
#include "passes/lower.h"
#include "project/layer_split.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace stagecraft::runtime {
namespace {

std::uint64_t opKey(OpKind kind, int pipe, int stage, int mb) {
    return (std::uint64_t(kind) << 56) | (std::uint64_t(pipe) << 48) |
           (std::uint64_t(std::uint32_t(stage)) << 24) | std::uint64_t(std::uint32_t(mb + 1));
}

std::uint64_t bufferKey(int pipe, int stage, int mb) {
    return (std::uint64_t(pipe) << 56) | (std::uint64_t(std::uint32_t(stage)) << 28) |
           std::uint64_t(std::uint32_t(mb));
}

/// torch's profiler names: "PP:" + the action string ("2F0", "0SEND_F1", "0REDUCE_GRAD").
std::string labelOf(const Instruction& in, bool splitBackward) {
    const std::string pipe = in.pipe != 0 ? "p" + std::to_string(in.pipe) + ":" : "";
    switch (in.kind) {
    case InstrKind::Compute: {
        Op op;
        op.kind = in.op;
        op.pipe = in.pipe;
        op.stage = in.stage;
        op.mb = in.mb;
        return "PP:" + actionString(op, splitBackward);
    }
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

bool usesActivationBuffer(const Instruction& in) {
    if (in.mb < 0) return false;
    return in.kind == InstrKind::Compute || in.kind == InstrKind::Send || in.kind == InstrKind::Recv;
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
    input.path = request.projectPath;
    input.schedules = {request.schedule};
    input.sets = request.sets;
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
    plan.schedule = request.schedule;
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
    std::unordered_map<std::uint64_t, std::int32_t> stageOf;    // (pipe, stage) -> index into stages
    std::unordered_map<std::uint64_t, std::int32_t> receiveOf;  // (dir, pipe, stage, mb) -> instruction
    std::unordered_map<std::uint64_t, std::int32_t> gradSyncOf; // (pipe, stage) -> instruction
    std::vector<std::int32_t> lastUse;
    for (std::size_t i = 0; i < program.size(); ++i) {
        const Instruction& in = program[i];
        Step& step = out.steps[i];
        step.instr = in;
        step.label = labelOf(in, schedule.splitBackward);
        const std::uint64_t stageKey = std::uint64_t(in.pipe) << 32 | std::uint32_t(in.stage);
        if (in.kind == InstrKind::Compute || in.kind == InstrKind::GradSync ||
            in.kind == InstrKind::Optimizer || usesActivationBuffer(in)) {
            auto [it, fresh] = stageOf.emplace(stageKey, std::int32_t(out.stages.size()));
            if (fresh)
                out.stages.push_back({in.pipe, in.stage, stageShape(plan.project, schedule, in.stage)});
            step.shape = it->second;
        }
        if (usesActivationBuffer(in)) {
            auto [it, fresh] =
                keyOf.emplace(bufferKey(in.pipe, in.stage, in.mb), std::int32_t(lastUse.size()));
            if (fresh) {
                lastUse.push_back(std::int32_t(i));
                step.allocate = true;
            }
            step.key = it->second;
            lastUse[std::size_t(step.key)] = std::int32_t(i);
        }
        if (in.kind == InstrKind::Send || in.kind == InstrKind::Recv) {
            out.peers.push_back(in.peer);
            if (in.kind == InstrKind::Recv)
                receiveOf[bufferKey(in.pipe, in.stage, in.mb) << 1 | std::uint64_t(in.dir)] = std::int32_t(i);
        }
        switch (in.kind) {
        case InstrKind::Compute: {
            if (in.op != OpKind::W) {
                const auto dir = in.op == OpKind::F ? Direction::F : Direction::B;
                const auto r = receiveOf.find(bufferKey(in.pipe, in.stage, in.mb) << 1 | std::uint64_t(dir));
                if (r != receiveOf.end()) step.after.push_back(r->second);
            }
            const auto d = duration.find(opKey(in.op, in.pipe, in.stage, in.mb));
            step.sleepUs = d == duration.end() ? 0.0 : d->second;
            break;
        }
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
    }
    for (const std::int32_t last : lastUse) out.steps[std::size_t(last)].release = true;
    out.keys = std::int32_t(lastUse.size());
    std::sort(out.peers.begin(), out.peers.end());
    out.peers.erase(std::unique(out.peers.begin(), out.peers.end()), out.peers.end());
    return out;
}

} // namespace stagecraft::runtime
