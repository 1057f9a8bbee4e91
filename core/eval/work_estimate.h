#pragma once
// How much an analysis will cost before it runs, and whether a front end should run it, ask first,
// or refuse it. A typo such as 99999999999 micro-batches must not freeze a window for a minute and
// exhaust the machine's memory; the front end asks for (or refuses) such work with these figures.

#include "eval/evaluation.h"

#include <cstddef>
#include <string>

namespace stagecraft {

/// Bytes one op costs while it is analysed and drawn: its Schedule entry, timeline event, memory
/// curve points, op index and chart layout together. Measured on the desktop app: 40 M ops held
/// 11.7 GB (about 290 bytes per op); rounded up.
inline constexpr double kAnalysisBytesPerOp = 300;

/// Above this many ops an analysis takes seconds: front ends ask before they start it.
inline constexpr std::size_t kConfirmWorkOps = std::size_t(4) << 20;

/// An analysis may use at most this share of the machine's memory; more is refused.
inline constexpr double kMaxWorkMemoryShare = 0.5;

/// A cost-aware generator (zb-auto, zb-v under unequal costs) searches for its order: each of its
/// ops costs about this many ops of a plain generate-and-simulate (zb-auto at p=32, m=256, 24,600
/// ops, searches for 0.2-0.5 s, as long as simulating a million plain ops).
inline constexpr double kSearchEffortPerOp = 40;

struct WorkEstimate {
    std::size_t ops = 0; ///< compute ops over every schedule of the request (estimateOpCount)
    double bytes = 0;    ///< ops x kAnalysisBytesPerOp
    /// Time the analysis takes, in plain ops: ops, with searched orders weighted by
    /// kSearchEffortPerOp. Front ends run work above a threshold of it off their UI thread.
    double effortOps = 0;
};

/// The request's work from its schedules' checks (the request's own when set: checksOf).
WorkEstimate estimateWork(const AnalysisRequest& request);
/// The same from checks made already (analyze() checks once and estimates with them).
WorkEstimate estimateWork(const AnalysisRequest& request, const ScheduleChecks& checks);

/// One registered schedule's effort with the project's parameters, in plain ops (0 when they
/// break its rules): its ops, times kSearchEffortPerOp for an order searched for the costs.
double scheduleEffortOps(const Project& project, const GeneratorInfo& info);

enum class WorkVerdict { Run, Confirm, Refuse };

struct WorkDecision {
    WorkVerdict verdict = WorkVerdict::Run;
    /// For Confirm and Refuse: the op count, the memory it needs and what to change, in words.
    std::string message;
};

/// Run small work, ask about work above kConfirmWorkOps, refuse work whose memory exceeds
/// kMaxWorkMemoryShare of `machineBytes` (0 = unknown: never refused for memory).
WorkDecision judgeWork(const WorkEstimate& estimate, double machineBytes);

} // namespace stagecraft
