#include "plan/run_plan.h"

#include "error.h"
#include "eval/evaluation_input.h"
#include "io/schedule_file.h"
#include "passes/lower.h"
#include "project/layer_split.h"
#include "sim/cost_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace stagecraft::runtime {

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
    // The prediction times what this program executes: the lowered programs with receives posted
    // when their slot is free (core/passes/run_timing.h), not the list scheduler's dependencies.
    analysis.project.costs.timing = Timing::StagecraftRun;
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
    // One slice unit carries its slice of the micro-batch's sequence (the costs' cut); a boundary
    // buffer holds the longest.
    plan.sliceLengths = sequenceSliceLengths(project, schedule);
    plan.boundaryElements =
        std::uint64_t(*std::max_element(plan.sliceLengths.begin(), plan.sliceLengths.end())) *
        std::uint64_t(project.model.microBatchSize) * std::uint64_t(project.model.hidden);
    // One activation per boundary, each slice's own tokens: what the executor sends (in any cost
    // mode, unit included).
    const int longest = *std::max_element(plan.sliceLengths.begin(), plan.sliceLengths.end());
    std::vector<double> shares;
    if (plan.sliceLengths.size() > 1)
        for (const int tokens : plan.sliceLengths) shares.push_back(double(tokens) / longest);
    plan.lowered = lower(
        schedule, boundaryBytesOf(schedule, double(plan.boundaryElements) * dtypeBytes(project.model.dtype),
                                  {}, shares));
    return plan;
}

std::vector<int> peersOf(const RankPlan& plan) {
    std::vector<int> peers;
    for (const PostQueues* queues : {&plan.sends, &plan.receives})
        for (const PeerQueue& q : queues->peers) peers.push_back(q.peer);
    std::sort(peers.begin(), peers.end());
    peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
    return peers;
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
    for (PostQueues* queues : {&out.sends, &out.receives})
        for (PeerQueue& q : queues->peers) q.peer += base;
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

} // namespace stagecraft::runtime
