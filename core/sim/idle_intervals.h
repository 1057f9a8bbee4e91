#pragma once
// Every idle stretch of every device with its cause: the intervals behind the per-device
// BubbleBreakdown of computeTimeMetrics (the same attribution, see idle_attribution.h; the
// lengths of a device's intervals of each cause sum to its breakdown).

#include "ir/op_index.h"
#include "sim/list_scheduler.h"
#include "sim/timeline.h"

#include <cstdint>
#include <vector>

namespace stagecraft {

enum class IdleCause : std::uint8_t {
    Warmup,        ///< before the device's first op
    Cooldown,      ///< after its last op, until the makespan
    WaitingOn,     ///< waiting for an op of `waitingOnDevice` to finish
    Communication, ///< waiting for a transfer in flight after its producer ended
    Other,         ///< anything else (collectives, a measured timeline's gaps)
};

/// "warmup", "cooldown", "waiting", "communication", "other".
const char* idleCauseName(IdleCause cause);

struct IdleInterval {
    int device = 0;
    double start = 0;
    double end = 0;
    IdleCause cause = IdleCause::Other;
    int waitingOnDevice = -1;   ///< WaitingOn and Communication: the producer's device
    std::int64_t producer = -1; ///< WaitingOn and Communication: event index of the producer op
    std::int64_t consumer = -1; ///< event index of the op that ends the gap (-1 for cooldown)
    double duration() const { return end - start; }
};

/// Idle intervals of every device in device order, each device's in time order; zero-length
/// pieces are left out. `costs` as for computeTimeMetrics (null: no transfer time). Linear;
/// throws ValidationError "timeline.mismatch" when the timeline is not of `schedule`.
std::vector<IdleInterval> idleIntervals(const Schedule& schedule, const OpIndex& index,
                                        const Timeline& timeline, const OpCosts* costs = nullptr);

} // namespace stagecraft
