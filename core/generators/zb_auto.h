#pragma once
// zb-auto: the zero-bubble paper's automatic scheduler (ZB-1p, ZB-2p) for one pipe of p stages,
// given each stage's F, B and W times, the transfer time and an activation-memory limit.
//
// The search (docs/zero-bubble.md gives the details):
//  1. candidates: the handcrafted ZB-H1 and ZB-H2 orders when they fit the limit, the best order
//     of the paper's own heuristic (zb_heuristic.h, so zb-auto is never slower than the paper),
//     and a grid of greedy list schedules. The greedy simulates all devices in time; a free device
//     runs the next B when its gradient has arrived, else the next F when its input has arrived,
//     its in-flight count is below the device's warm-up cap and the activation fits the limit,
//     else a pending W when memory is full or when the W ends before (or at most a tolerance
//     after) the next input can arrive. The grid varies the warm-up caps (cap_d = K - s*d) and the
//     W tolerance.
//  2. local improvement: coordinate descent on the per-device caps of the best greedy candidate,
//     each step evaluated by the same timing.
//  3. the best order by the paper's cost (the largest per-device span from its first F to its last
//     op; ties broken by makespan), with a lower bound that no order under the same limit can beat.
// Deterministic: no randomness and a fixed evaluation order; the search stops early when an order
// reaches the lower bound.

#include "generators/registry.h"
#include "work_control.h"

#include <string>

namespace stagecraft {

struct ZbAutoResult {
    Schedule schedule;
    double span = 0;       ///< the paper's cost: max over devices of last end - first start
    double makespan = 0;   ///< end of the last op (all devices start at 0)
    double lowerBound = 0; ///< no order under the same limit has a smaller span
    double busy = 0;       ///< max over devices of its total work, m (f + b + w)
    double bubbleRate = 0; ///< (span - busy) / span, the paper's bubble rate
    double peakMemory = 0; ///< largest in-flight activation memory of a device, in M_a
    int evaluations = 0;   ///< candidate orders timed
    bool cancelled = false;
    std::string winner; ///< which candidate won ("greedy K=8 s=1 tol=0.5", "zb-h1", ...)
};

/// Plan the order for `request` (one pipe of `request.params.pp` stages, unit costs when none are
/// given; memoryLimit 0 = no limit). Throws ValidationError "generator.memory" when the limit is
/// below one activation.
/// `control`: progress after each timed candidate; when its flag is set the search stops and
/// returns the best order so far, marked `cancelled` (Error "work.cancelled" when it had timed none).
ZbAutoResult zbAutoSchedule(const GenerateRequest& request, const WorkControl& control = {});

/// The lower bound alone (see docs/zero-bubble.md): for every device d, its work plus the idle time
/// it cannot avoid before its first B, and the critical path from its last F through the pipe and
/// back; the largest over the devices.
double zbAutoLowerBound(const GenerateRequest& request);

namespace gen {
void checkZbAuto(const ScheduleParams&);
Schedule zbAuto(const GenerateRequest& request);
} // namespace gen

} // namespace stagecraft
