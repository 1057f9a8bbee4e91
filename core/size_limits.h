#pragma once
// Every size limit of Stagecraft in one place. They exist so that a typo (pp: 1000000000) or a
// hostile file is refused with a message naming the limit instead of exhausting memory; each is
// far beyond any real setup. Generators, readers, the project table and the chart layout all
// check against these, and the messages quote them.

#include <cstddef>
#include <cstdint>

namespace stagecraft {

// Schedules.
inline constexpr int kMaxDevices = 4096;                     ///< pipeline devices p
inline constexpr int kMaxMicrobatches = 1 << 20;             ///< micro-batches m
inline constexpr int kMaxChunksPerDevice = 64;               ///< v of looped schedules
inline constexpr int kMaxSequenceSlices = 64;                ///< k of sequence-sliced schedules (Seq1F1B)
inline constexpr int kMaxStagesPerPipe = 1 << 16;            ///< stages of one pipe in a file
inline constexpr int kMaxFileChunks = 1 << 16;               ///< chunk index a file may name
inline constexpr int kMaxPipes = 256;                        ///< pipes a trace may name
inline constexpr std::size_t kMaxOps = std::size_t(1) << 28; ///< ops of one schedule

// Files.
inline constexpr std::uintmax_t kMaxReadBytes = std::uintmax_t(1) << 31; ///< any file read at once
inline constexpr std::size_t kMaxProjectBytes = std::size_t(4) << 20;    ///< a project file
inline constexpr std::size_t kMaxScheduleNameLength = 64;                ///< a name in `schedules`
inline constexpr double kMaxStageCostUs = 1e9;                           ///< one op time, µs (1000 s)

// Traces.
inline constexpr std::size_t kMaxTraceSlices = std::size_t(1) << 24; ///< slices a trace reader keeps
inline constexpr std::int64_t kMaxTraceIndex =
    (std::int64_t(1) << 24) - 1; ///< stage / micro-batch in a trace

// Charts.
inline constexpr int kMaxChartRows = 4096; ///< device rows of one chart panel

} // namespace stagecraft
