#pragma once
// The parameters schedule generators read, each described once: its name, its place in the
// project file, its range, default and help. The registry's parameter specs, the project's field
// table (and through it the JSON reader, `--set` and the GUI forms) and `stagecraft-cli list` all
// take these rows, so a new parameter is one member of ScheduleParams and one row here.

#include "size_limits.h"

#include <span>
#include <string_view>

namespace stagecraft {

/// What an order generator is asked for. Names match the project file's `parallel` section.
struct ScheduleParams {
    int pp = 4;           ///< pipeline devices p
    int microbatches = 8; ///< m
    int chunks = 2;       ///< v: model chunks per device (read by interleaved and breadth-first only)
    int slices = 2;       ///< k: sequence slices per micro-batch (read by seq1f1b only)
    friend bool operator==(const ScheduleParams&, const ScheduleParams&) = default;
};

struct ScheduleParamField {
    std::string_view name; ///< "pp": the parameter's name in the registry and `list`
    std::string_view path; ///< "parallel.pp": its project field and `--set` path
    int min;               ///< the widest range any schedule accepts
    int max;
    int defaultValue;             ///< in a new project
    std::string_view defaultText; ///< the same, as `--set` takes it
    std::string_view help;        ///< one line for forms, `list` and docs
    int ScheduleParams::*member;
};

inline constexpr ScheduleParamField kParamPp{
    "pp", "parallel.pp", 1, kMaxDevices, 4, "4", "pipeline devices p", &ScheduleParams::pp};
inline constexpr ScheduleParamField kParamMicrobatches{"microbatches",
                                                       "parallel.microbatches",
                                                       1,
                                                       kMaxMicrobatches,
                                                       8,
                                                       "8",
                                                       "micro-batches m per iteration and replica",
                                                       &ScheduleParams::microbatches};
inline constexpr ScheduleParamField kParamChunks{"chunks",
                                                 "parallel.chunks",
                                                 1,
                                                 kMaxChunksPerDevice,
                                                 2,
                                                 "2",
                                                 "model chunks v per device (interleaved, breadth-first)",
                                                 &ScheduleParams::chunks};

inline constexpr ScheduleParamField kParamSlices{"slices",
                                                 "parallel.slices",
                                                 1,
                                                 kMaxSequenceSlices,
                                                 2,
                                                 "2",
                                                 "sequence slices k per micro-batch (seq1f1b)",
                                                 &ScheduleParams::slices};

/// Every schedule parameter, in the order forms and `list` show them.
std::span<const ScheduleParamField> scheduleParamFields();

} // namespace stagecraft
