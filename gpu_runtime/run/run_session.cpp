#include "run/run_session.h"

#include "backends/host_layer.h"
#include "error.h"
#include "error_ids.h"
#include "exec/executor.h"
#include "exec/interrupt.h"
#include "exec/trace_assembly.h"
#include "mpi/mpi_check.h"
#include "mpi/mpi_session.h"
#ifdef STAGECRAFT_WITH_CUDA_LOADER
#include "backends/cuda_module.h"
#endif

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#ifndef STAGECRAFT_GIT_REVISION
#define STAGECRAFT_GIT_REVISION "unknown"
#endif

namespace stagecraft::runtime {
namespace {

/// The layer the options ask for, the same on every rank: each rank probes, one collective
/// gathers the probes, and every rank decides from all of them (plan/backend_choice.h) before any
/// NCCL call. `cuda` where a rank has no device, or NCCL with more ranks than GPUs on a host, is bad
/// input (exit 2) with the reason; `auto` falls back to the host on every rank and says so.
std::unique_ptr<DeviceLayer> makeLayer(const RunOptions& options, const MpiSession& mpi, std::string& note) {
    if (options.backend == Backend::Host) return std::make_unique<HostLayer>();
    RankProbe mine;
#ifdef STAGECRAFT_WITH_CUDA_LOADER
    const CudaProbe probe = probeCuda();
    mine.devices = probe.devices;
    if (probe.devices <= 0) mine.message = probe.message.empty() ? "no CUDA device" : probe.message;
#else
    mine.message =
        "this build has no CUDA backend (the CUDA toolkit, NCCL or MPI was not found at configure)";
#endif
    mine.localRank = mpi.localRank();
    const BackendChoice choice = chooseBackend(options.backend, options.transport == TransportKind::Mpi,
                                               gatherProbes(mpi.comm(), mine));
    if (!choice.refusal.empty()) throw ValidationError(choice.refusalId, "--backend", choice.refusal);
    note = choice.note;
    if (choice.backend == Backend::Host) return std::make_unique<HostLayer>();
#ifdef STAGECRAFT_WITH_CUDA_LOADER
    CudaLayerOptions cuda;
    cuda.localRank = mine.localRank;
    cuda.mpiTransport = options.transport == TransportKind::Mpi;
    return createCudaLayer(cuda);
#else
    throw std::logic_error("makeLayer: the CUDA backend was chosen in a build without it");
#endif
}

struct Collected {
    MeasuredRun run;
    std::vector<std::string> devices;
    std::vector<ClockOffset> offsets;
    nlohmann::json fault; ///< null when the run completed
    int replicas = 1;
};

std::string runJson(const RunOptions& options, const RunPlan& plan, const Collected& c,
                    const AssembledTrace& trace, const std::string& backend) {
    nlohmann::json j;
    j["tool"] = "stagecraft-run";
    j["git_revision"] = STAGECRAFT_GIT_REVISION;
    j["backend"] = backend;
    j["transport"] = backend == "cuda" ? (options.transport == TransportKind::Mpi ? "mpi" : "nccl") : "mpi";
    j["workload"] = workloadName(plan.workload);
    j["scale"] = options.request.scale;
    j["project"] = plan.project.name;
    j["project_file"] = options.request.projectPath;
    j["sets"] = options.request.sets;
    j["schedule"] = plan.schedule;
    if (!options.request.scheduleFile.empty()) j["schedule_file"] = options.request.scheduleFile;
    j["ranks"] = plan.lowered.ranks;
    j["replicas"] = c.replicas; // data-parallel pipelines that ran; the trace shows replica 0
    j["devices"] = c.devices;
    j["warmup"] = options.warmup;
    j["iterations"] = options.iterations;
    j["complete_iterations"] = trace.completeIterations;
    nlohmann::json offsets = nlohmann::json::array(), uncertainty = nlohmann::json::array();
    for (const ClockOffset& o : c.offsets) {
        offsets.push_back(o.offsetUs);
        uncertainty.push_back(o.uncertaintyUs);
    }
    j["clock_offsets_us"] = offsets;
    j["clock_uncertainty_us"] = uncertainty;
    if (!c.run.clockOffsetEndUs.empty()) {
        // Measured again after the last iteration; each iteration uses the two interpolated.
        j["clock_offsets_end_us"] = c.run.clockOffsetEndUs;
        nlohmann::json drift = nlohmann::json::array();
        for (std::size_t r = 0; r < c.run.clockOffsetEndUs.size() && r < c.offsets.size(); ++r)
            drift.push_back(c.run.clockOffsetEndUs[r] - c.offsets[r].offsetUs);
        j["clock_drift_us"] = drift;
    }
    j["iteration_us"] = trace.iterationUs;
    j["predicted_iteration_us"] = plan.prediction.report.iterationUs;
    j["prediction_timing"] = plan.project.runtimeFit ? plan.project.runtimeFit->model
                                                     : std::string(timingName(plan.project.costs.timing));
    j["peak_bytes"] = trace.peakBytes;
    j["static_bytes"] = c.run.staticBytes;
    j["slot_bytes_planned"] = c.run.plannedSlotBytes;
    j["slot_bytes_resident"] = trace.residentSlotBytes;
    j["allocations_in_iterations"] = trace.allocationsInIterations;
    j["run_ahead"] = options.runAhead;
    j["predicted_peak_bytes"] = [&] {
        nlohmann::json peaks = nlohmann::json::array();
        for (const DeviceMemory& d : plan.prediction.report.memory.devices) peaks.push_back(d.peakBytes);
        return peaks;
    }();
    j["causality_violations"] = trace.causalityViolations;
    j["worst_causality_gap_us"] = trace.worstViolationUs;
    j["dependency_violations"] = trace.dependencyViolations;
    j["worst_dependency_gap_us"] = trace.worstDependencyUs;
    if (!c.fault.is_null()) j["fault"] = c.fault;
    return j.dump();
}

/// Rank 0: the measured trace, complete or partial, written atomically.
AssembledTrace writeTrace(const RunOptions& options, const RunPlan& plan, const Collected& c,
                          const std::string& backend) {
    double tolerance = 1.0; // µs: steady_clock reads and the offset estimate on one host
    for (const ClockOffset& o : c.offsets) tolerance = std::max(tolerance, 2 * o.uncertaintyUs);
    AssembledTrace trace = assembleTrace(plan, c.run, tolerance);
    ChromeTraceOptions trace_options;
    trace_options.title = plan.schedule + " measured on " + std::to_string(plan.lowered.ranks) + " ranks (" +
                          backend + ", " + workloadName(plan.workload) + ")";
    trace_options.counters = trace.memory;
    for (int r = 0; r < plan.lowered.ranks; ++r)
        trace_options.deviceNames.push_back("Rank " + std::to_string(r));
    trace_options.iterations = trace.iterations;
    trace_options.annotations = trace.waits;
    trace_options.runJson = runJson(options, plan, c, trace, backend);
    writeChromeTrace(trace.timeline, options.output, trace_options);
    return trace;
}

/// How long the communicators' abort may take before MPI_Abort ends the job anyway.
constexpr std::chrono::milliseconds kAbortLimit{5000};

/// After a fault: the communicators are aborted, then MPI_Abort ends every rank. Rank 0 writes the
/// partial trace before; another rank gives it the time to (it stops within one watchdog timeout
/// of this one, at a deadline of its own or the stop signal) before it ends the job itself, so
/// that a fault seen first elsewhere does not kill rank 0 in the middle of writing.
void endAfterFault(const MpiSession& mpi, DeviceLayer& layer, const RunOptions& options) {
    layer.abort(kAbortLimit);
    if (mpi.rank() != 0) {
        const auto grace = std::chrono::duration<double>(options.timeoutSeconds + 5.0);
        const Clock::time_point until = Clock::now() + std::chrono::duration_cast<Clock::duration>(grace);
        while (Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    mpi.abortAll(1);
}

double milliseconds(double us) {
    return us / 1000.0;
}

/// Every rank builds the plan from the same inputs (nothing is sent around), but a file may be
/// missing or different on one node. The ranks agree before anything else, so that no rank waits
/// in a collective for one that has given up: when any rank's inputs are refused, every rank ends
/// with the error of the lowest such rank (rank 0 prints it; its class decides the exit status).
RunPlan agreedRunPlan(const MpiSession& mpi, const RunRequest& request) {
    std::optional<RunPlan> plan;
    std::string refusal; // "class\nid\nfield\nmessage"
    try {
        plan = makeRunPlan(request);
    } catch (const Error& e) {
        const auto* v = dynamic_cast<const ValidationError*>(&e);
        const auto* p = dynamic_cast<const ParseError*>(&e);
        refusal = std::string(errorClassOf(e) == ErrorClass::Input ? "input" : "failure") + '\n' + e.id() +
                  '\n' +
                  (v   ? v->field()
                   : p ? p->source()
                       : std::string()) +
                  '\n' + e.message();
    }
    const int mine = plan ? mpi.size() : mpi.rank();
    int first = mpi.size();
    SC_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, mpi.comm()));
    if (first == mpi.size()) return std::move(*plan);
    int length = int(refusal.size());
    SC_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, first, mpi.comm()));
    refusal.resize(std::size_t(length));
    SC_MPI_CHECK(MPI_Bcast(refusal.data(), length, MPI_CHAR, first, mpi.comm()));
    std::vector<std::string> parts;
    std::size_t from = 0;
    for (int k = 0; k < 3; ++k) {
        const std::size_t end = refusal.find('\n', from);
        parts.push_back(refusal.substr(from, end - from));
        from = end == std::string::npos ? refusal.size() : end + 1;
    }
    const std::string message =
        (first != 0 ? "rank " + std::to_string(first) + ": " : "") + refusal.substr(from);
    if (parts[0] == "input") throw ValidationError(parts[1], parts[2], message);
    throw Error(parts[1], message);
}

/// The data-parallel replicas the started processes make: one pipeline (P ranks) or every replica
/// of it (P x dp ranks); any other count, or a bad number of iterations, is refused.
int replicasOf(const RunPlan& plan, const MpiSession& mpi, const RunOptions& options) {
    const int P = plan.lowered.ranks;
    const int dp = std::max(1, plan.project.parallel.dp);
    if (mpi.size() != P && mpi.size() != P * dp)
        throw ValidationError(
            "runtime.ranks", "parallel.pp",
            plan.schedule + " runs on " + std::to_string(P) + " ranks per pipeline (parallel.pp = " +
                std::to_string(plan.project.parallel.pp) + ", parallel.dp = " + std::to_string(dp) +
                "), but " + std::to_string(mpi.size()) + " processes were started: run mpirun -np " +
                std::to_string(P * dp) + " (every replica), -np " + std::to_string(P) +
                " (one pipeline), or --set parallel.pp=" + std::to_string(mpi.size()));
    if (options.iterations < 1 || options.warmup < 0)
        throw ValidationError("runtime.iterations", "--iterations",
                              "--iterations must be >= 1 and --warmup >= 0");
    return mpi.size() / P;
}

/// The layer told this rank's peers, the collectives of every replica and their sizes.
void setUpLayer(DeviceLayer& layer, const MpiSession& mpi, const RunPlan& plan, const RankPlan& rankPlan,
                int replicas) {
    LayerSetup setup;
    setup.rank = mpi.rank();
    setup.ranks = mpi.size();
    setup.peers = peersOf(rankPlan);
    setup.collectives = replicaCollectives(plan.lowered, replicas);
    for (const Collective& c : plan.lowered.collectives)
        setup.collectiveElements.push_back(
            plan.workload == Workload::Model
                ? weightLayout(stageShape(plan.project, plan.prediction.schedule, c.stage)).elements
                : 1);
    setup.dtype = std::string(dtypeName(plan.project.model.dtype));
    setup.records = std::int32_t(rankPlan.steps.size());
    layer.setup(setup);
}

/// What rank 0 gathers before the first iteration: the clocks' offsets, the devices, the static and
/// the planned slot memory of every rank. The trace holds replica 0's pipeline (`P` ranks): its
/// ranks' records, memory and clocks.
Collected collectBeforeRun(const MpiSession& mpi, DeviceLayer& layer, const Executor& executor, int P,
                           int replicas) {
    Collected collected;
    collected.replicas = replicas;
    collected.offsets = exchangeClockOffsets(mpi.comm(), layer.anchorTime(), 16);
    collected.devices = gatherStrings(mpi.comm(), layer.describe());
    const std::int64_t mineStatic = executor.staticBytes();
    collected.run.staticBytes.assign(std::size_t(mpi.size()), 0);
    SC_MPI_CHECK(MPI_Gather(&mineStatic, 1, MPI_INT64_T, collected.run.staticBytes.data(), 1, MPI_INT64_T, 0,
                            mpi.comm()));
    const std::uint64_t mineSlots = executor.plannedSlotBytes();
    collected.run.plannedSlotBytes.assign(std::size_t(mpi.size()), 0);
    SC_MPI_CHECK(MPI_Gather(&mineSlots, 1, MPI_UINT64_T, collected.run.plannedSlotBytes.data(), 1,
                            MPI_UINT64_T, 0, mpi.comm()));
    collected.run.ranks.resize(std::size_t(P));
    collected.run.staticBytes.resize(std::size_t(P));
    collected.run.plannedSlotBytes.resize(std::size_t(P));
    for (std::size_t r = 0; r < collected.offsets.size(); ++r)
        collected.run.clockOffsetUs.push_back(collected.offsets[r].offsetUs);
    return collected;
}

/// Rank 0 after a fault: the trace of what was measured, with the fault, written as far as it can be.
void writePartialTrace(const RunOptions& options, const RunPlan& plan, Collected& collected,
                       const std::string& backend, nlohmann::json fault) {
    collected.fault = std::move(fault);
    try {
        writeTrace(options, plan, collected, backend);
        std::cerr << "stagecraft-run: partial trace written to " << options.output << '\n';
    } catch (const std::exception& e) {
        std::cerr << "stagecraft-run: the partial trace could not be written: " << e.what() << '\n';
    }
}

/// What one run needs besides the options: the plan, this rank's executor and layer, and what
/// rank 0 collects.
struct Session {
    MpiSession& mpi;
    const RunOptions& options;
    const RunPlan& plan;
    Executor& executor;
    DeviceLayer& layer;
    Collected& collected;
    std::string backend;
};

/// Warm-up and measured iterations, each measured one gathered on rank 0 with a watchdog. A rank
/// that stops (its own fault, or a gather that timed out because another stopped) says where; rank 0
/// writes the partial trace; then the job ends (endAfterFault).
void runIterations(Session& s) {
    const RunOptions& options = s.options;
    const bool root = s.mpi.rank() == 0;
    const auto timeout =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeoutSeconds));
    if (options.faultRank == s.mpi.rank())
        s.executor.injectFault(options.faultIteration, options.faultPosition, options.faultHang);
    int iteration = -options.warmup;
    try {
        for (; iteration < options.iterations; ++iteration) {
            RankIteration record = s.executor.run(iteration, timeout);
            if (iteration < 0) continue; // warm-up: not measured
            std::vector<RankIteration> all = gatherIteration(s.mpi.comm(), record, Clock::now() + timeout);
            if (!root) continue;
            for (std::size_t r = 0; r < all.size() && r < s.collected.run.ranks.size(); ++r)
                s.collected.run.ranks[r].push_back(std::move(all[r]));
            if (!options.quiet)
                std::fprintf(
                    stderr, "stagecraft-run: iteration %d of %d: %.3f ms\n", iteration + 1,
                    options.iterations,
                    milliseconds(iterationSpanUs(s.plan.lowered, s.collected.run, std::size_t(iteration))));
        }
    } catch (const ExecutionFault& fault) {
        std::cerr << "stagecraft-run: rank " << s.mpi.rank() << " stopped at instruction " << fault.position
                  << " (" << fault.instruction << ") of " << (fault.iteration < 0 ? "warm-up " : "")
                  << "iteration "
                  << (fault.iteration < 0 ? fault.iteration + options.warmup + 1 : fault.iteration + 1)
                  << ": " << fault.what() << '\n';
        if (root) {
            if (fault.iteration >= 0) s.collected.run.ranks[0].push_back(fault.partial);
            writePartialTrace(options, s.plan, s.collected, s.backend,
                              {{"rank", s.mpi.rank()},
                               {"iteration", fault.iteration},
                               {"position", fault.position},
                               {"instruction", fault.instruction},
                               {"message", fault.what()}});
        }
        endAfterFault(s.mpi, s.layer, options);
    } catch (const DeadlineExceeded& e) { // the gather timed out: another rank stopped
        std::cerr << "stagecraft-run: rank " << s.mpi.rank() << ": " << e.what() << '\n';
        if (root)
            writePartialTrace(options, s.plan, s.collected, s.backend,
                              {{"rank", s.mpi.rank()}, {"iteration", iteration}, {"message", e.what()}});
        endAfterFault(s.mpi, s.layer, options);
    }
}

/// The clocks once more: over a long run they drift apart, and the trace interpolates.
void measureClocksAgain(Session& s) {
    const double endAtUs =
        std::chrono::duration<double, std::micro>(Clock::now() - s.layer.anchorTime()).count();
    for (const ClockOffset& o : exchangeClockOffsets(s.mpi.comm(), s.layer.anchorTime(), 16))
        s.collected.run.clockOffsetEndUs.push_back(o.offsetUs);
    s.collected.run.clockEndAtUs = endAtUs;
}

/// Rank 0's last line: the trace written, the iterations' mean against the prediction, the peak
/// memory and the checks.
void printSummary(const RunOptions& options, const RunPlan& plan, const AssembledTrace& trace) {
    double sum = 0;
    for (const double us : trace.iterationUs) sum += us;
    double peak = 0;
    for (const double bytes : trace.peakBytes) peak = std::max(peak, bytes);
    std::fprintf(stderr,
                 "stagecraft-run: wrote %s: %d iterations, mean %.3f ms (predicted %.3f ms), peak memory "
                 "%.1f MiB, %d causality and %d dependency violations\n",
                 options.output.c_str(), int(trace.iterationUs.size()),
                 milliseconds(sum / double(std::max<std::size_t>(1, trace.iterationUs.size()))),
                 milliseconds(plan.prediction.report.iterationUs), peak / 1048576.0,
                 trace.causalityViolations, trace.dependencyViolations);
}

} // namespace

int runSession(MpiSession& mpi, const RunOptions& options) {
    installInterruptHandlers();
    const RunPlan plan = agreedRunPlan(mpi, options.request);
    const int replicas = replicasOf(plan, mpi, options);
    const bool root = mpi.rank() == 0;
    std::string note;
    std::unique_ptr<DeviceLayer> layer = makeLayer(options, mpi, note);
    const std::string backend = dynamic_cast<HostLayer*>(layer.get()) ? "host" : "cuda";
    if (root && !note.empty() && !options.quiet) std::cerr << "stagecraft-run: " << note << '\n';

    const RankPlan rankPlan = replicaRankPlan(plan, mpi.rank(), replicas);
    setUpLayer(*layer, mpi, plan, rankPlan, replicas);
    ExecutorOptions executorOptions;
    executorOptions.runAhead = options.runAhead;
    executorOptions.earlyPosts = backend == "host"; // NCCL posts as lowered, groups intact
    Executor executor(plan, rankPlan, *layer, executorOptions);
    executor.allocateStatic();
    SC_MPI_CHECK(MPI_Barrier(mpi.comm()));
    layer->anchor();

    Collected collected = collectBeforeRun(mpi, *layer, executor, plan.lowered.ranks, replicas);
    if (root && !options.quiet)
        std::cerr << "stagecraft-run: " << plan.schedule << " on " << mpi.size() << " ranks, " << backend
                  << " backend, " << workloadName(plan.workload) << " workload, " << rankPlan.steps.size()
                  << " instructions on rank 0; predicted iteration "
                  << milliseconds(plan.prediction.report.iterationUs) << " ms\n";
    Session session{mpi, options, plan, executor, *layer, collected, backend};
    runIterations(session);
    measureClocksAgain(session);
    if (root) {
        const AssembledTrace trace = writeTrace(options, plan, collected, backend);
        if (!options.quiet) printSummary(options, plan, trace);
    }
    SC_MPI_CHECK(MPI_Barrier(mpi.comm()));
    return 0;
}

} // namespace stagecraft::runtime
