#pragma once
// List scheduling of a schedule: every device runs its ops strictly in order; an op starts when
// its device is free and all its inputs have arrived (dependency end + comm when it crosses
// devices). Gradient syncs are asynchronous collectives on the device's communication lane: a
// device posts its sync and goes on computing; the replicas of one stage (same stage index in
// every pipe) start the collective together once all have posted it, after their previous
// collectives; an Optimizer op waits for its stage's sync. Linear in the number of ops. Used
// with zero costs by the validator (deadlock check) and with real costs by the simulator.

#include "ir/op_index.h"
#include "ir/overlap.h"
#include "ir/schedule.h"
#include "sim/timeline.h"

#include <array>
#include <span>
#include <string>
#include <vector>

namespace stagecraft {

/// Duration of every op and the delay of cross-device dependencies.
struct OpCosts {
    /// duration[kind][pipe * stagesPerPipe + stage], in µs (or units).
    std::array<std::vector<double>, kOpKindCount> duration;
    double comm = 0.0; ///< added to every dependency whose producer runs on another device
    /// When set, devices on different nodes (nodeOfDevice[a] != nodeOfDevice[b]) pay
    /// `commInterNode` instead of `comm`.
    std::vector<int> nodeOfDevice;
    double commInterNode = 0.0;
    /// An overlapped forward-backward slot (ir/overlap.h) lasts this times the sum of its ops'
    /// durations: 1 = no gain from overlapping (the project's costs.fb / (f + b + w)).
    double overlap = 1.0;
    /// Sequence slices whose costs differ (causal attention, core/sim/slice_work.h): what slice q
    /// of an op kind costs relative to `duration`, the mean slice, at
    /// sliceScale[kind][slot * slices + q]. Empty = every slice costs the same.
    std::array<std::vector<double>, kOpKindCount> sliceScale;
    int slices = 1;
    /// Sequence slices of unequal length (a balanced split): slice q's transfer takes
    /// commOfSlice[q] between devices of one node and commInterNodeOfSlice[q] between nodes, since
    /// it carries its own tokens. Empty = every transfer takes `comm` / `commInterNode`.
    std::vector<double> commOfSlice;
    std::vector<double> commInterNodeOfSlice;

    /// What a dependency of micro-batch (slice unit) `mb` from device `from` to device `to` waits
    /// for its tensor: 0 on one device.
    double commBetween(int from, int to, int mb) const {
        if (from == to) return 0.0;
        const bool near = nodeOfDevice.empty() || nodeOfDevice[from] == nodeOfDevice[to];
        if (commOfSlice.empty()) [[likely]]
            return near ? comm : commInterNode;
        return (near ? commOfSlice : commInterNodeOfSlice)[std::size_t(mb % slices)];
    }
    /// Whether every cross-device dependency takes `comm` (one node, slices alike): the list
    /// scheduler's fast path.
    bool uniformComm() const { return nodeOfDevice.empty() && commOfSlice.empty(); }
    double of(const Op& op, int stagesPerPipe) const {
        const std::size_t slot = std::size_t(op.pipe) * std::size_t(stagesPerPipe) + std::size_t(op.stage);
        const auto& scale = sliceScale[static_cast<int>(op.kind)];
        const double mean = duration[static_cast<int>(op.kind)][slot];
        return scale.empty() ? mean : mean * scale[slot * std::size_t(slices) + std::size_t(op.mb % slices)];
    }
};

/// Costs given per full stage (layers / p) and micro-batch, the convention of the project file: a
/// stage of this schedule costs `stageFraction()` of that, a sequence slice `sliceShare()` of its
/// micro-batch's; a backward that is not split costs b + w; a recompute (R) costs what the forward
/// costs.
OpCosts fullStageCosts(const Schedule& schedule, double f, double b, double w, double comm = 0.0,
                       double gradSync = 0.0, double optimizer = 0.0);

struct OpTime {
    double start = -1.0;
    double end = -1.0;
};

/// A device that could not go on, and why.
struct BlockedDevice {
    int device = -1;
    OpRef at;           ///< the op the device is stuck on
    OpRef waitingFor;   ///< the dependency it waits for (invalid for a collective)
    std::string reason; ///< one readable sentence
};

struct ListScheduleResult {
    std::vector<std::size_t> deviceOffset; ///< flat index of device d's first op
    std::vector<OpTime> times;             ///< [deviceOffset[d] + index]
    std::vector<BlockedDevice> blocked;    ///< empty when every op ran
    std::vector<int> cycle;                ///< devices that wait on each other in a ring (deadlock)

    bool complete() const { return blocked.empty(); }
    const OpTime& time(int device, int index) const { return times[deviceOffset[device] + index]; }
};

/// "device 2 waits at position 5 (2F3) for 1F3 at position 4 of device 1": why the op at `at`
/// cannot run; `waitingFor` invalid for an op the schedule does not contain.
std::string waitReason(const Schedule& schedule, OpRef at, OpRef waitingFor);

/// The devices that wait on each other in a ring (a deadlock), in the order they wait, found by
/// following each blocked device to the device of the op it waits for until one repeats; empty
/// when the waits end at a device that is not blocked. The list scheduler and the schedule editor
/// (edit/) both report deadlocks through it.
std::vector<int> findWaitRing(std::span<const BlockedDevice> blocked, std::size_t devices);

/// Slots (ir/overlap.h) run as one: a slot starts when its device is free and every input of its
/// ops (other than their own) has arrived, lasts the sum of their durations (times
/// `costs.overlap` for an overlapped F&B slot), and every op of it gets the slot's start and end
/// (all outputs are ready at the end). `splitSlots` then divides the slot among its ops for a
/// timeline.
ListScheduleResult listSchedule(const Schedule& schedule, const OpIndex& index, const OpCosts& costs);

/// The same, writing every op's start and end into `events[index.globalId(op)]` instead of
/// `times` (which stays empty): the simulator fills its timeline's compute events in place, which
/// saves a 16-byte-per-op array and a copy. `events` must hold one event per op (at least
/// `index.opCount()`), each with a negative `end`; only `start` and `end` are written.
ListScheduleResult listScheduleInto(const Schedule& schedule, const OpIndex& index, const OpCosts& costs,
                                    std::span<TimelineEvent> events);

/// Divide every run slot of `events` (as listScheduleInto left them, all ops spanning the slot)
/// among its ops in proportion to their stand-alone durations, in order: F first, then the
/// backward. Busy time, memory (the forward allocates first) and charts then read the slot as
/// one bar split in parts; the slot's start and end stay as simulated.
void splitSlots(const Schedule& schedule, const ScheduleSlots& slots, const OpCosts& costs,
                std::span<TimelineEvent> events);

} // namespace stagecraft
