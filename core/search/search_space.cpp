#include "search/search_space.h"

#include "error.h"
#include "generators/registry.h"
#include "size_limits.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace stagecraft {

namespace {

[[noreturn]] void refuse(const std::string& field, const std::string& message) {
    throw ValidationError("search.space", field, message);
}

std::string number(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

bool readsChunks(const GeneratorInfo& info, int& minChunks, int& maxChunks) {
    for (const ParamSpec& p : info.params)
        if (p.name == "chunks") {
            minChunks = p.min;
            maxChunks = p.max;
            return true;
        }
    return false;
}

std::vector<int> divisorsOf(int n) {
    std::vector<int> out;
    for (int d = 1; d <= n; ++d)
        if (n % d == 0) out.push_back(d);
    return out;
}

std::vector<const GeneratorInfo*> schedulesOf(const SearchSpace& space) {
    std::vector<const GeneratorInfo*> out;
    if (space.schedules.empty()) {
        for (const GeneratorInfo& info : generators()) out.push_back(&info);
        return out;
    }
    for (const std::string& name : space.schedules) {
        const GeneratorInfo* info = tryFindGenerator(name);
        if (!info) findGenerator(name); // throws the message that lists the valid names
        if (std::find(out.begin(), out.end(), info) == out.end()) out.push_back(info);
    }
    return out;
}

std::vector<int> tpDegreesOf(const Project& project, const SearchSpace& space, int gpus) {
    std::vector<int> out;
    if (!space.tpDegrees.empty()) {
        for (const int tp : space.tpDegrees) {
            if (tp < 1 || tp > project.cluster.gpusPerNode)
                refuse("tp", "tensor-parallel degree " + std::to_string(tp) +
                                 ": must be 1..cluster.gpus_per_node = " +
                                 std::to_string(project.cluster.gpusPerNode));
            out.push_back(tp);
        }
    } else {
        for (int tp = 1; tp <= project.cluster.gpusPerNode; tp *= 2) out.push_back(tp);
    }
    std::vector<int> kept;
    for (const int tp : out)
        if (gpus % tp == 0 && project.model.heads % tp == 0 && project.model.hidden % tp == 0 &&
            std::find(kept.begin(), kept.end(), tp) == kept.end())
            kept.push_back(tp);
    return kept;
}

std::vector<BatchPoint> pointsOf(const Project& project, const SearchSpace& space, int gpus) {
    std::vector<BatchPoint> points;
    if (space.globalBatch > 0) {
        points.push_back({space.globalBatch, double(space.globalBatch) / gpus});
        return points;
    }
    if (space.globalBatch < 0)
        refuse("global_batch", "global batch " + std::to_string(space.globalBatch) + ": must be positive");
    if (space.batchPerGpu.empty()) {
        const long long batch = 1LL * project.parallel.microbatches * project.model.microBatchSize *
                                std::max(1, project.parallel.dp);
        if (batch > kMaxMicrobatches) refuse("global_batch", "the project's global batch is too large");
        points.push_back({int(batch), double(batch) / gpus});
        return points;
    }
    for (const double beta : space.batchPerGpu) {
        const double batch = beta * gpus;
        const double rounded = std::round(batch);
        if (!(beta > 0) || !std::isfinite(beta) || std::abs(batch - rounded) > 1e-6 || rounded < 1 ||
            rounded > double(kMaxMicrobatches))
            refuse("batch_per_gpu", "batch size per GPU " + number(beta) + " on " + std::to_string(gpus) +
                                        " GPUs gives a global batch of " + number(batch) +
                                        ": it must be a whole number of samples, 1.." +
                                        std::to_string(kMaxMicrobatches));
        const BatchPoint point{int(rounded), beta};
        if (std::none_of(points.begin(), points.end(),
                         [&](const BatchPoint& p) { return p.globalBatch == point.globalBatch; }))
            points.push_back(point);
    }
    return points;
}

} // namespace

std::vector<double> parseBatchRange(const std::string& text, const std::string& option) {
    auto parse = [&](const std::string& part) {
        char* end = nullptr;
        const double v = std::strtod(part.c_str(), &end);
        if (part.empty() || end != part.c_str() + part.size() || !(v > 0) || !std::isfinite(v) || v > 1e6)
            refuse(option, option + " = '" + text +
                               "': expected a positive number A or a range A..B of positive numbers");
        return v;
    };
    const std::size_t dots = text.find("..");
    if (dots == std::string::npos) return {parse(text)};
    const double from = parse(text.substr(0, dots));
    const double to = parse(text.substr(dots + 2));
    if (to < from) refuse(option, option + " = '" + text + "': the range must not run backwards (A <= B)");
    std::vector<double> out;
    for (double v = from; v <= to * (1 + 1e-9) && out.size() < 64; v *= 2) out.push_back(v);
    return out;
}

Recompute parseRecompute(const std::string& text, const std::string& option) {
    for (const Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full})
        if (text == recomputeName(r)) return r;
    refuse(option, option + " = '" + text + "': expected none, selective or full");
}

Project projectForConfig(const Project& project, const SearchConfig& config) {
    Project p = project;
    p.schedules = {config.schedule};
    p.parallel.pp = config.pp;
    p.parallel.dp = config.dp;
    p.parallel.tp = config.tp;
    p.parallel.microbatches = config.microbatches;
    p.parallel.chunks = config.chunks;
    p.model.microBatchSize = config.microBatchSize;
    p.memory.zeroStage = config.zeroStage;
    p.memory.recompute = config.recompute;
    // Per-stage cost overrides name full stages of the project's own pipeline.
    if (config.pp != project.parallel.pp) p.costs.stages.clear();
    return p;
}

SearchPlan planSearch(const Project& project, const SearchSpace& space) {
    SearchPlan plan;
    if (project.costs.mode != CostMode::Analytic)
        throw ValidationError("search.costs", "costs.mode",
                              "costs.mode = " + std::string(costModeName(project.costs.mode)) +
                                  ": a configuration search needs costs.mode = analytic (unit costs have no "
                                  "times; manual costs do not change with pp, tp or the micro-batch size)");
    const long long clusterGpus = 1LL * project.cluster.nodes * project.cluster.gpusPerNode;
    if (space.gpus < 0 || space.gpus > clusterGpus)
        refuse("max_gpus", "GPUs " + std::to_string(space.gpus) + ": the cluster has " +
                               std::to_string(clusterGpus) + " (cluster.nodes × cluster.gpus_per_node)");
    if (clusterGpus < 1 || clusterGpus > kMaxDevices * 64LL)
        refuse("max_gpus", "the cluster has " + std::to_string(clusterGpus) + " GPUs: a search needs 1.." +
                               std::to_string(kMaxDevices * 64LL));
    plan.gpus = space.gpus > 0 ? space.gpus : int(clusterGpus);
    if (space.maxChunks < 1 || space.maxChunks > kMaxChunksPerDevice)
        refuse("max_chunks", "max chunks " + std::to_string(space.maxChunks) + ": must be 1.." +
                                 std::to_string(kMaxChunksPerDevice));
    const std::vector<const GeneratorInfo*> schedules = schedulesOf(space);
    std::vector<int> sizes = space.microBatchSizes;
    if (sizes.empty()) sizes.push_back(project.model.microBatchSize);
    for (const int b : sizes)
        if (b < 1 || b > 4096)
            refuse("micro_batch_sizes", "micro-batch size " + std::to_string(b) + ": must be 1..4096");
    std::vector<int> zeros = space.zeroStages;
    if (zeros.empty()) zeros = {0, 1, 2, 3};
    for (const int z : zeros)
        if (z < 0 || z > 3) refuse("zero", "ZeRO stage " + std::to_string(z) + ": must be 0..3");
    std::vector<Recompute> recomputes = space.recomputes;
    if (recomputes.empty()) recomputes.push_back(project.memory.recompute);
    const std::vector<int> tps = tpDegreesOf(project, space, plan.gpus);
    plan.points = pointsOf(project, space, plan.gpus);

    for (int point = 0; point < int(plan.points.size()); ++point) {
        const BatchPoint& bp = plan.points[std::size_t(point)];
        for (const GeneratorInfo* info : schedules) {
            int minChunks = 1, maxChunks = 1;
            const bool chunked = readsChunks(*info, minChunks, maxChunks);
            for (const int tp : tps)
                for (const int pp : divisorsOf(plan.gpus / tp)) {
                    const int dp = plan.gpus / tp / pp;
                    for (const int b : sizes) {
                        if (bp.globalBatch % (dp * b) != 0) continue;
                        const int m = bp.globalBatch / (dp * b);
                        const int lastChunks = chunked ? std::min(maxChunks, space.maxChunks) : 1;
                        for (int v = chunked ? minChunks : 1; v <= lastChunks; ++v) {
                            SearchConfig c;
                            c.schedule = std::string(info->name);
                            c.pp = pp;
                            c.dp = dp;
                            c.tp = tp;
                            c.microbatches = m;
                            c.chunks = chunked ? v : 1;
                            c.microBatchSize = b;
                            c.gpus = plan.gpus;
                            c.globalBatch = bp.globalBatch;
                            c.batchPerGpu = bp.batchPerGpu;
                            c.point = point;
                            Project p = projectForConfig(project, c);
                            const ScheduleParams params = effectiveParams(*info, scheduleParams(p));
                            const double ops = computeOpCount(*info, params) * info->pipes;
                            if (constraintViolation(*info, params) || ops > double(space.maxOpsPerConfig)) {
                                ++plan.skipped;
                                continue;
                            }
                            // Looped schedules get chunk counts that split the layers evenly; the
                            // uneven split (one layer fewer at both ends) is for the ZB paper's models.
                            if (chunked && project.model.layers % (pp * v) != 0) {
                                ++plan.skipped;
                                continue;
                            }
                            try {
                                checkLayersFit(p, *info);
                            } catch (const Error&) {
                                ++plan.skipped;
                                continue;
                            }
                            // Without replicas (dp = 1, one pipe) ZeRO shards nothing: one stage is enough.
                            const bool replicas = dp * info->pipes > 1;
                            for (const Recompute rc : recomputes) {
                                c.recompute = rc;
                                for (const int z : zeros) {
                                    c.zeroStage = z;
                                    plan.configs.push_back(c);
                                    if (!replicas) break;
                                }
                            }
                        }
                    }
                }
        }
    }
    return plan;
}

} // namespace stagecraft
