#include "eval/project_simulation.h"

#include "eval/evaluation.h"
#include "eval/runtime_fit.h"
#include "file_io.h"
#include "ir/op_index.h"
#include "passes/iteration_tail.h"
#include "passes/lower.h"
#include "passes/run_timing.h"
#include "sim/simulator.h"

#include <algorithm>
#include <cstdio>

namespace stagecraft {

namespace {

/// What a prediction under a runtime fit rests on, for the schedule's notes.
std::string runtimeFitNote(const RuntimeFitRecord& fit, const ScheduleTiming& timed) {
    std::string note =
        "timed as " + fit.model + " (" + timed.runtime + ") runs it, fitted on " + fileNamesOf(fit.source);
    for (const std::string& n : timed.notes) note += "; " + n;
    return note;
}

/// The list-scheduled `timeline` of `s` re-timed as stagecraft-run executes its lowered programs
/// (passes/run_timing.h): the same op durations, receives posted when their slot is free.
Timeline timedAsStagecraftRun(const Schedule& s, Timeline timeline, const OpCosts& costs) {
    return timeLikeStagecraftRun(s, lower(s), std::move(timeline), costs);
}

Prediction predictTailed(const Project& project, Schedule&& tailed, const WorkControl* control,
                         MemoryDetail memory) {
    Prediction out;
    out.schedule = std::move(tailed);
    // Rough shares of the time after each step (simulation and index dominate).
    const auto step = [&](double done) {
        if (!control) return;
        throwIfCancelled(control, "the prediction of " + out.schedule.name);
        control->report(done);
    };
    const Schedule& s = out.schedule;
    out.setup = buildCostSetup(project, s);
    step(0.1);
    out.index = std::make_shared<const OpIndex>(s);
    const OpIndex& index = *out.index;
    step(0.25);
    ScheduleReport& r = out.report;
    r.notes = s.notes;
    if (project.runtimeFit) {
        // Timed as the fitted runtime runs it: its waits are its own, not the cost model's
        // transfers, so the metrics read them as a measurement's.
        const WorkControl draws = control ? control->part(0.25, 0.6) : WorkControl{};
        ScheduleTiming timed = timeScheduleLikeTorch(project.runtimeFit->costs, s, s.name, kFittedInputShare,
                                                     control ? &draws : nullptr);
        out.timeline = std::move(timed.timeline);
        r.notes += std::string(r.notes.empty() ? "" : "; ") + runtimeFitNote(*project.runtimeFit, timed);
    } else {
        out.timeline = simulate(s, index, out.setup.costs);
        if (project.costs.timing == Timing::StagecraftRun) {
            out.timeline = timedAsStagecraftRun(s, std::move(out.timeline), out.setup.costs);
            r.notes += std::string(r.notes.empty() ? "" : "; ") +
                       "timed as stagecraft-run runs it (receives posted when their buffer slot is free)";
        }
    }
    step(0.6);
    r.schedule = s.name;
    r.unitless = out.setup.unitless && !project.runtimeFit;
    r.costs = out.setup.summary;
    if (project.runtimeFit) {
        // The chart's cost line and reports say what timed the schedule.
        r.costs.mode = "runtime fit";
        r.costs.text = describeRuntimeFit(*project.runtimeFit);
    }
    r.time = computeTimeMetrics(s, index, out.timeline, project.runtimeFit ? nullptr : &out.setup.costs);
    step(0.75);
    r.memory = computeMemory(s, out.timeline, out.setup.memory, memory);
    step(1.0);
    r.iterationUs = r.time.makespan;
    if (project.costs.optimizerSync == OptimizerSync::PostValidation) {
        // No flush: a device starts its next iteration after its own optimizer step, so in steady
        // state an iteration lasts its longest device span; the flag all-reduce is the only
        // collective left at the end.
        r.postValidation = true;
        double longest = 0;
        for (const DeviceMetrics& d : r.time.devices) longest = std::max(longest, d.span());
        const double gpus = double(s.devices) * std::max(1, project.parallel.dp);
        r.rollbackCheckUs = project.costs.mode == CostMode::Analytic
                                ? 2.0 * std::max(0.0, gpus - 1) * project.cluster.latencyUs
                                : 0.0;
        r.iterationUs = longest + r.rollbackCheckUs;
    }
    if (r.unitless || r.iterationUs <= 0) {
        r.flopsNote = r.unitless ? "unit costs: times are units, not seconds" : "the iteration takes no time";
        return out;
    }

    const double dp = std::max(1, project.parallel.dp);
    const double tp = std::max(1, project.parallel.tp);
    const double gpus = double(s.devices) * dp * tp;
    const double seconds = r.iterationUs * 1e-6;
    r.samplesPerSecond = s.sampleMicrobatches() * project.model.microBatchSize * dp / seconds;
    r.tokensPerSecond = r.samplesPerSecond * project.model.seqLen;
    r.tflopsPerGpu = out.setup.flopsPerIteration / seconds / gpus / 1e12;
    r.mfu = project.cluster.peakTflops > 0 ? r.tflopsPerGpu / project.cluster.peakTflops : 0.0;
    r.flopsMeaningful = project.cluster.peakTflops > 0 && r.mfu <= 1.0;
    if (!r.flopsMeaningful) {
        char note[200];
        std::snprintf(note, sizeof note,
                      "the %s costs imply %.0f%% of cluster.peak_tflops: they do not time this model on "
                      "this GPU, so TFLOP/s and MFU are not shown",
                      out.setup.summary.mode.c_str(), 100 * r.mfu);
        r.flopsNote = project.cluster.peakTflops > 0 ? note : "cluster.peak_tflops is 0";
        r.tflopsPerGpu = 0;
        r.mfu = 0;
    }
    r.p2pBytes = double(index.crossDeviceDependencies()) * out.setup.p2pBytesPerTransfer * dp * tp;
    r.collectiveBytes = out.setup.collectiveBytesPerIteration;
    return out;
}

} // namespace

Prediction predict(const Project& project, const Schedule& schedule, const WorkControl* control,
                   MemoryDetail memory) {
    return predictTailed(project, addIterationTail(schedule, IterationTailOptions{}), control, memory);
}

Prediction predict(const Project& project, Schedule&& schedule, const WorkControl* control,
                   MemoryDetail memory) {
    return predictTailed(project, addIterationTail(std::move(schedule), IterationTailOptions{}), control,
                         memory);
}

} // namespace stagecraft
