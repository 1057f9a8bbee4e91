#pragma once
// One run of stagecraft-run on one rank: plan, device layer, warm-up, measured iterations with a
// watchdog, the records gathered on rank 0, the measured trace written there. main.cpp only
// parses the command line and maps errors to exit statuses.

#include "plan/backend_choice.h"
#include "plan/run_plan.h"

#include <string>

namespace stagecraft::runtime {

class MpiSession;

enum class TransportKind : std::uint8_t { Nccl, Mpi };

struct RunOptions {
    RunRequest request;
    Backend backend = Backend::Auto;
    TransportKind transport = TransportKind::Nccl;
    int warmup = 1;
    int iterations = 3;
    std::string output = "measured.json";
    double timeoutSeconds = 60; ///< a wait longer than this ends the run (watchdog)
    int runAhead = 32;          ///< instructions the host may issue ahead of the device (0: unbounded)
    bool quiet = false;         ///< no progress lines
    /// Testing the fault path: the rank dies (SIGKILL) or hangs (stops forever) when it reaches
    /// instruction `faultPosition` of measured iteration `faultIteration`.
    int faultRank = -1;
    int faultIteration = 0;
    int faultPosition = 0;
    bool faultHang = false;
};

/// Runs on every rank of `mpi`; returns the exit status (0, or 1 when the run failed and the
/// partial trace was written). Throws stagecraft::Error for bad input before anything starts.
int runSession(MpiSession& mpi, const RunOptions& options);

} // namespace stagecraft::runtime
