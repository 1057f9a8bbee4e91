// stagecraft-run: executes a schedule on the ranks mpirun starts (one per pipeline device) and
// writes the measured trace. Exit status: 0 success, 2 bad input or usage (before anything ran),
// 1 a failure while running (the partial trace is written by rank 0 when it can).
//
//   mpirun -np P stagecraft-run --project FILE (--schedule NAME | --schedule-file FILE.csv|.json)
//          [--set F=V]... --backend host|cuda|auto
//          --workload model|sleep [--scale X] [--transport nccl|mpi] --warmup N --iterations N -o
//          measured.json

#include "error_ids.h"
#include "mpi/mpi_session.h"
#include "run/run_session.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>

namespace {

using namespace stagecraft;
using namespace stagecraft::runtime;

constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

void addOptions(CLI::App& app, RunOptions& o) {
    app.add_option("--project", o.request.projectPath,
                   "Project file (*.stagecraft.json); default: the built-in project");
    // One of the two: a registered schedule, or a schedule file (an edited order, torch's CSV).
    auto* what = app.add_option_group("schedule", "What to run: one of");
    what->add_option("-s,--schedule", o.request.schedule, "Registered schedule to run (stagecraft-cli list)");
    what->add_option("-f,--schedule-file", o.request.scheduleFile,
                     "Schedule file to run: torch's compute-only CSV or Stagecraft schedule JSON "
                     "(stagecraft-cli edit -o writes both); the project gives model, cluster and costs");
    what->require_option(1);
    app.add_option("--set", o.request.sets, "Override a project field: section.field=value (repeatable)");
    app.add_option("--backend", o.backend,
                   "host (CPU GEMMs + MPI), cuda (cuBLAS + NCCL), auto (cuda when a GPU is present)")
        ->transform(CLI::CheckedTransformer(std::map<std::string, Backend>{
            {"host", Backend::Host}, {"cuda", Backend::Cuda}, {"auto", Backend::Auto}}));
    app.add_option("--workload", o.request.workload,
                   "model (transformer GEMMs) or sleep (each op waits its predicted time)")
        ->transform(CLI::CheckedTransformer(
            std::map<std::string, Workload>{{"model", Workload::Model}, {"sleep", Workload::Sleep}}));
    app.add_option("--scale", o.request.scale,
                   "Shrink hidden size, sequence length and vocabulary by this factor (0, 1]");
    app.add_option("--transport", o.transport,
                   "cuda backend: nccl, or mpi (host-staged; for several ranks sharing one GPU)")
        ->transform(CLI::CheckedTransformer(std::map<std::string, TransportKind>{
            {"nccl", TransportKind::Nccl}, {"mpi", TransportKind::Mpi}}));
    app.add_option("--warmup", o.warmup, "Iterations run before measuring")->check(CLI::Range(0, 1000000));
    app.add_option("--iterations", o.iterations, "Measured iterations")->check(CLI::Range(1, 1000000));
    app.add_option("-o,--output", o.output, "Measured trace (Chrome trace JSON), written by rank 0");
    app.add_option("--timeout", o.timeoutSeconds,
                   "Seconds a wait may take before the run is ended (watchdog)")
        ->check(CLI::Range(0.01, 86400.0));
    app.add_option("--run-ahead", o.runAhead,
                   "Instructions the host may issue ahead of the device's completion (0: unbounded)")
        ->check(CLI::Range(0, 1000000));
    app.add_flag("-q,--quiet", o.quiet, "No progress lines");
    auto* fault = app.add_option_group("testing");
    fault->add_option("--fault-rank", o.faultRank, "Testing: the rank that fails")->group("");
    fault->add_option("--fault-iteration", o.faultIteration, "Testing: in this measured iteration (0-based)")
        ->group("");
    fault->add_option("--fault-position", o.faultPosition, "Testing: at this instruction of its program")
        ->group("");
    fault->add_flag("--fault-hang", o.faultHang, "Testing: hang instead of dying")->group("");
}

/// Settings the CUDA runtime reads once, when it starts, which a CUDA-aware MPI may do inside
/// MPI_Init: set before it, unless the user set them. Eager module loading: a kernel loaded lazily
/// in the first iteration may synchronize the device while a NCCL kernel waits for its peer (the
/// CUDA programming guide's hazard). Connections: this rank's streams (compute, buffer release,
/// one per edge and collective) each get a hardware queue instead of sharing the default 8. A host
/// run never starts CUDA and ignores both.
void setCudaEnvironment() {
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
}

int run(int argc, char** argv) {
    setCudaEnvironment();
    MpiSession mpi(argc, argv);
    const bool root = mpi.rank() == 0;
    CLI::App app{
        "Stagecraft runtime: execute and profile a schedule, one process per pipeline rank (mpirun -np P)",
        "stagecraft-run"};
    RunOptions options;
    addOptions(app, options);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (root) {
            const int status = app.exit(e);
            return dynamic_cast<const CLI::Success*>(&e) ? status : kExitBadInput;
        }
        return dynamic_cast<const CLI::Success*>(&e) ? 0 : kExitBadInput;
    }
    try {
        return runSession(mpi, options);
    } catch (const Error& e) {
        // Every rank reads the same inputs and fails the same way before running: one message.
        if (root) std::cerr << "stagecraft-run: " << e.message() << '\n';
        return errorClassOf(e) == ErrorClass::Input ? kExitBadInput : kExitFailure;
    } catch (const std::exception& e) {
        std::cerr << "stagecraft-run: rank " << mpi.rank() << ": " << e.what() << '\n';
        if (mpi.size() > 1) mpi.abortAll(kExitFailure); // the others would wait for this rank forever
        return kExitFailure;
    }
}

} // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stagecraft-run: %s\n", e.what());
        return kExitFailure;
    } catch (...) {
        std::fputs("stagecraft-run: internal error\n", stderr);
        return kExitFailure;
    }
}
