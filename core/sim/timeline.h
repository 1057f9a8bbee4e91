#pragma once
// Timeline: one event per op with its start and end, the single type for predictions (from the
// simulator) and measurements (from the runtime or a trace file). Charts, metrics, the memory
// curve, trace files and the overlay all read it.

#include "ir/schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft {

/// Which lane of its device an event occupies. Compute ops run one at a time on the compute
/// lane; point-to-point transfers and gradient collectives run on the communication lane and
/// overlap compute, as NCCL streams do.
enum class Lane : std::uint8_t { Compute, Comm };

/// What a communication event moves.
enum class CommKind : std::uint8_t {
    None,       ///< a compute event
    Activation, ///< F output to the next stage's F (send on `device`, received on `peer`)
    Gradient,   ///< B output to the previous stage's B
    Collective, ///< GradSync all-reduce between the replicas of a stage
};

/// "compute" (None), "activation", "gradient", "collective": the names trace files and charts use.
const char* commKindName(CommKind kind);

struct TimelineEvent {
    Op op;                   ///< compute: the op; transfer: the producing op
    std::int32_t device = 0; ///< where it runs (transfers: the sender)
    std::int32_t peer = -1;  ///< transfers: the receiving device
    Lane lane = Lane::Compute;
    CommKind comm = CommKind::None;
    double start = 0.0; ///< µs (or units under unit costs)
    double end = 0.0;

    double duration() const { return end - start; }
    /// A point-to-point transfer (an activation or a gradient), not a compute op or a collective.
    bool isTransfer() const { return comm == CommKind::Activation || comm == CommKind::Gradient; }
    friend bool operator==(const TimelineEvent&, const TimelineEvent&) = default;
};

/// Shape of the schedule a timeline belongs to, so a timeline read from a file can be matched
/// against a schedule and drawn without it.
struct TimelineShape {
    std::string schedule; ///< schedule name
    int devices = 0;
    int pipes = 1;
    int stagesPerPipe = 0;
    int microbatches = 0;
    int chunksPerDevice = 1;
    bool splitBackward = false;
    std::vector<Op> overlapped = {}; ///< heads of overlapped forward-backward slots (Schedule::overlapped)
    int sequenceSlices = 1;          ///< Schedule::sequenceSlices: ops' mb are slice units when > 1
    friend bool operator==(const TimelineShape&, const TimelineShape&) = default;
};

TimelineShape shapeOf(const Schedule& schedule);

struct Timeline {
    TimelineShape shape;
    std::string origin = "predicted"; ///< "predicted" or "measured"
    /// Compute events of device d are in that device's schedule order; communication events
    /// follow all compute events. Times are µs from the start of the iteration.
    std::vector<TimelineEvent> events;

    double makespan() const;
    friend bool operator==(const Timeline&, const Timeline&) = default;
};

} // namespace stagecraft
