#pragma once
// Memory of every device over one iteration: static memory (weights, gradients and optimizer
// state of the stages it holds; replicas count twice) plus the activations in flight. A forward
// allocates its stage's activations when it starts; a backward that is not split frees them when
// it ends; a split backward (B) frees all but the part the weight gradient needs, which W frees.
// A recomputed (stage, micro-batch), one the timeline has an R for, keeps only its checkpoint (the
// stage input) from its forward on; the R allocates the activations again when it starts, and the
// backward (W when split) frees them with the checkpoint.
// A micro-batch cut into sequence slices also holds the key and value gradients of its earlier
// slices from its last slice's B (the first backward to run, which allocates them at its start)
// to the end of its first slice's B.

#include "ir/schedule.h"
#include "sim/timeline.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace stagecraft {

/// Bytes of one stage replica (pipe, stage): static, and per micro-batch in flight.
struct StageMemory {
    double staticBytes = 0;     ///< weights + gradients + optimizer state (after ZeRO sharding)
    double activationBytes = 0; ///< kept from a forward until its backward (M_B)
    double keptForWBytes = 0;   ///< of those, kept after B until W (M_W; split backward only)
    double checkpointBytes = 0; ///< kept from a recomputed forward until its backward: the stage input
    /// Sequence slices: the gradients of the keys and values of a micro-batch's earlier slices,
    /// which each later slice's backward adds to, held from the micro-batch's last slice's backward
    /// (the first to run) to the end of its first slice's.
    double keyValueGradientBytes = 0;
};

struct MemoryInputs {
    std::vector<StageMemory> stages; ///< [pipe * stagesPerPipe + stage]
    double limitBytes = 0;           ///< 0 = no limit
    /// The limit is the GPU's memory, which is below the project's own limit (a 120 GiB limit
    /// on an 80 GiB GPU is an 80 GiB budget): reports say so.
    bool limitIsGpuMemory = false;
    /// Sequence slices that weigh differently: what slice q's activations on stage slot s weigh
    /// relative to `stages[s]` (1/k of a whole micro-batch's), at sliceScale[s * k + q]: their
    /// tokens' share, and with dense attention kernels the rectangle of scores they keep
    /// (core/sim/slice_work.h). Empty = every slice weighs the same.
    std::vector<double> sliceScale;
    int slices = 1; ///< sequence slices per micro-batch (Schedule::sequenceSlices)
};

struct DeviceMemory {
    double staticBytes = 0;
    double peakBytes = 0;
    double peakTime = 0;
    std::vector<std::pair<double, double>> curve; ///< (time, bytes) after each change, in time order
};

struct MemoryReport {
    std::vector<DeviceMemory> devices;
    double limitBytes = 0;
    bool limitIsGpuMemory = false; ///< see MemoryInputs
    bool fits = true;              ///< every device's peak within the limit (always true without a limit)
    int worstDevice = 0;           ///< the device with the highest peak
    double overBytes = 0;          ///< how far the worst device exceeds the limit (0 when it fits)
};

/// What one compute op changes on its device's memory: `allocated` at its start, `freed` at its
/// end. `recomputed`: the schedule has an R for the op's (stage, micro-batch). The one rule both
/// the memory curves and the op inspector's "memory after" read.
struct OpMemoryChange {
    double allocated = 0;
    double freed = 0;
};
OpMemoryChange opMemoryChange(const StageMemory& m, OpKind kind, bool splitBackward, bool recomputed);

/// The change of `op` of stage replica `slot`, its slice's weight included (and a sliced
/// micro-batch's key-value gradients: allocated by its last slice's B, freed by its first's): what
/// the curves and the inspector call for an op of a schedule.
OpMemoryChange opMemoryChange(const MemoryInputs& inputs, std::size_t slot, const Op& op, bool splitBackward,
                              bool recomputed);

/// What computeMemory keeps per device: the whole curve (charts, exports, the op inspector), or
/// only the static memory and the peak (reports and searches that print figures: a curve costs
/// 16 bytes per op).
enum class MemoryDetail : std::uint8_t { Curves, PeaksOnly };

/// Memory curves of `timeline` (a timeline of `schedule`). Linear in the number of events. Under
/// PeaksOnly every figure is the same and `DeviceMemory::curve` stays empty.
MemoryReport computeMemory(const Schedule& schedule, const Timeline& timeline, const MemoryInputs& inputs,
                           MemoryDetail detail = MemoryDetail::Curves);

/// The papers' units: no static memory, one M_a (a full stage's activations) per micro-batch
/// and stage fraction, and for split schedules everything kept until W (the ZB paper's peak
/// count). Peaks then read directly as "in-flight activations": a recompute's checkpoint counts
/// nothing here (the papers count full activations; give checkpointBytes to count checkpoints).
MemoryInputs unitMemoryInputs(const Schedule& schedule);

} // namespace stagecraft
