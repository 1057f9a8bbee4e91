#include "search/search_eval.h"

#include "error.h"
#include "eval/evaluation.h"
#include "eval/project_simulation.h"
#include "generators/registry.h"
#include "project/layer_split.h"
#include "project/project_validate.h"
#include "sim/transformer_math.h"

#include <algorithm>
#include <exception>
#include <vector>

namespace stagecraft {

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

/// Parameters per GPU of each stage of one pipe (the cost model's accounting: the layers, the
/// embedding on the first stage and the untied LM head on the last).
std::vector<double> stageParams(const Project& project, int stages) {
    TransformerShape t;
    t.layers = project.model.layers;
    t.hidden = project.model.hidden;
    t.heads = project.model.heads;
    t.seqLen = project.model.seqLen;
    t.vocab = project.model.vocab;
    t.microBatch = project.model.microBatchSize;
    t.dtypeBytes = dtypeBytes(project.model.dtype);
    t.tp = std::max(1, project.parallel.tp);
    std::vector<int> split = splitLayers(project.model.layers, stages);
    if (split.empty()) split.assign(std::size_t(stages), project.model.layers / std::max(1, stages));
    std::vector<double> params;
    for (int s = 0; s < stages; ++s)
        params.push_back(split[std::size_t(s)] * layerParams(t) + (s == 0 ? embeddingParams(t) : 0.0) +
                         (s + 1 == stages ? embeddingParams(t) : 0.0));
    return params;
}

/// Weight all-gathers of sharded data parallelism, replayed over the predicted timeline. A
/// device runs its ops in runs of one stage replica (a breadth-first device runs all micro-batches
/// of a stage in one run; a depth-first one switches stages every few micro-batches; a non-looped
/// one has a single run). ZeRO-3 keeps every stage's weights sharded and gathers them before each
/// run (`everyRun`); ZeRO-1 and -2 gather the updated weights once per iteration, before the
/// stage's first run, and keep them. The gathers use the device's communication lane one after
/// another, and the gather of run k may start once run k-1 has started (one gathered stage in use,
/// one prefetched: the breadth-first paper's double buffer). When a gather ends after its run
/// should have started, the run and everything after it on the device shifts. Returns the latest
/// shifted end over all devices (the iteration's new end); `stallUs` is the largest shift.
double replayGathers(const Prediction& prediction, bool everyRun, double& stallUs) {
    const Schedule& s = prediction.schedule;
    const auto& gatherUs = prediction.setup.costs.duration[int(OpKind::GradSync)]; // the same ring
    std::vector<std::vector<const TimelineEvent*>> byDevice(std::size_t(s.devices));
    for (const TimelineEvent& e : prediction.timeline.events)
        if (e.lane == Lane::Compute && e.device >= 0 && e.device < s.devices)
            byDevice[std::size_t(e.device)].push_back(&e);
    double end = 0;
    stallUs = 0;
    for (const auto& events : byDevice) {
        double delay = 0, laneFree = 0, previousRunStart = 0, deviceEnd = 0;
        bool first = true;
        int runPipe = -1, runStage = -1;
        std::vector<char> gathered(gatherUs.size(), 0);
        for (const TimelineEvent* e : events) {
            const Op& op = e->op;
            const bool compute = op.kind == OpKind::F || op.kind == OpKind::B || op.kind == OpKind::W;
            if (compute && (op.pipe != runPipe || op.stage != runStage)) {
                runPipe = op.pipe;
                runStage = op.stage;
                const std::size_t slot = std::size_t(op.pipe) * std::size_t(s.stagesPerPipe) + op.stage;
                if (!everyRun && gathered[slot]) {
                    previousRunStart = e->start + delay;
                    deviceEnd = std::max(deviceEnd, e->end + delay);
                    continue;
                }
                gathered[slot] = 1;
                const double start = first ? 0.0 : std::max(laneFree, previousRunStart);
                const double gatherEnd = start + gatherUs[slot];
                laneFree = gatherEnd;
                const double runStart = std::max(e->start + delay, gatherEnd);
                delay = runStart - e->start;
                previousRunStart = runStart;
                first = false;
            }
            deviceEnd = std::max(deviceEnd, e->end + delay);
        }
        stallUs = std::max(stallUs, delay);
        end = std::max(end, deviceEnd);
    }
    return end;
}

} // namespace

ConfigResult evaluateConfig(const Project& base, const SearchConfig& config) {
    ConfigResult r;
    r.config = config;
    try {
        const Project project = projectForConfig(base, config);
        // Unit costs have no times; manual costs are per full stage of one pipeline and do not
        // change with pp, tp or the micro-batch size: only the analytic model compares layouts.
        if (project.costs.mode != CostMode::Analytic)
            throw ValidationError(
                "search.costs", "costs.mode",
                "costs.mode = " + std::string(costModeName(project.costs.mode)) +
                    ": a configuration search needs costs.mode = analytic (unit costs have no "
                    "times; manual costs do not change with pp, tp or the micro-batch size)");
        validateProject(project);
        const GeneratorInfo& info = findGenerator(config.schedule);
        checkLayersFit(project, info);
        // A search compares peaks: the curves are not kept.
        const Prediction prediction =
            predict(project, orderFromProject(project, config.schedule), nullptr, MemoryDetail::PeaksOnly);
        const ScheduleReport& report = prediction.report;
        r.bubbleRatio = report.time.bubbleRatio;
        r.iterationUs = report.iterationUs;
        r.predictedIterationUs = report.iterationUs;
        r.predictedMfu = report.mfu;
        double peak = 0;
        for (const DeviceMemory& d : report.memory.devices) peak = std::max(peak, d.peakBytes);
        const Schedule& s = prediction.schedule;
        const auto& sync = prediction.setup.costs.duration[int(OpKind::GradSync)];
        r.gradSyncUs = sync.empty() ? 0.0 : *std::max_element(sync.begin(), sync.end());
        if (config.zeroStage >= 1 && config.dp * s.pipes > 1)
            r.iterationUs =
                std::max(r.iterationUs, replayGathers(prediction, config.zeroStage == 3, r.gatherStallUs));
        if (config.zeroStage == 3 && config.dp * s.pipes > 1) {
            // The gathered weights of the stage in use and of the prefetched one, unsharded.
            const std::vector<double> params = stageParams(project, s.stagesPerPipe);
            peak += 2.0 * *std::max_element(params.begin(), params.end()) * dtypeBytes(project.model.dtype);
        }
        const double scale = report.iterationUs / r.iterationUs;
        r.samplesPerSecond = report.samplesPerSecond * scale;
        r.tokensPerSecond = report.tokensPerSecond * scale;
        r.tflopsPerGpu = report.tflopsPerGpu * scale;
        r.mfu = report.mfu * scale;
        r.peakMemoryBytes = peak;
        const double limitGib =
            project.memory.limitGib > 0 ? project.memory.limitGib : project.cluster.memoryGib;
        r.limitBytes = limitGib * kBytesPerGib;
        r.evaluated = true;
        r.fits = r.limitBytes <= 0 || peak <= r.limitBytes;
    } catch (const Error& e) {
        r.refusalId = e.id();
        r.refusal = e.message();
    } catch (const std::exception& e) {
        r.refusalId = "search.evaluate";
        r.refusal = e.what();
    }
    return r;
}

} // namespace stagecraft
