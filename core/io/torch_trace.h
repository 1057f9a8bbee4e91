#pragma once
// Readers of the traces torch writes of torch.distributed.pipelining runs:
//  * torch profiler (Kineto) Chrome traces, one file per rank: the `record_function` ranges
//    "PP:<action>" the pipelining runtime wraps around every action ("PP:2F0", "PP:0SEND_F1",
//    "PP:1RECV_B0", "PP:0UNSHARD", "PP:0REDUCE_GRAD"), DualPipeV's "PP:(0F3;3B1)OVERLAP_F_B" (two
//    halves, split where the backward began: io/overlap_ranges.h) and ScheduleGPipe's own
//    "Forward 3" / "Backward 3". With GPU activity, a range is timed by the kernels it launched
//    (host launch -> kernel through the `correlation` id), or by Kineto's `gpu_user_annotation`
//    copy of the range when the trace has one;
//  * torch's `_dump_chrometrace` (one file, pid = rank, unit-step grid, bare action names).
// docs/overlay.md describes the mapping; measured_run.h turns the ranges into a Timeline.

#include "io/measured_run.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

/// Which times a torch trace's ranges take.
enum class TraceClock : std::uint8_t {
    Auto, ///< kernel (GPU) times when the trace has kernels launched from the ranges, else host times
    Host, ///< the host ranges as recorded
};

/// The ranks of one file: one for a profiler trace (its rank from `distributedInfo.rank`, or -1),
/// one per pid for `_dump_chrometrace` (rank = pid). Bad JSON is a ParseError("trace.json") with
/// line and column; a "PP:" range (or a `_dump_chrometrace` slice) whose name is not a pipeline
/// action, or whose times are not finite and >= 0, is a ParseError("trace.event") naming the file,
/// traceEvents[i], the name and the reason. gloo's point-to-point records are counted
/// (RankTrace::transferRecords); CPU ops are read only to split OVERLAP_F_B ranges; other events
/// are skipped.
std::vector<RankTrace> parseTorchTrace(std::string_view text, const std::string& source,
                                       TraceClock clock = TraceClock::Auto);
std::vector<RankTrace> readTorchTrace(const std::filesystem::path& path, TraceClock clock = TraceClock::Auto);

/// True when `text` looks like a trace torch wrote (a Kineto `schemaVersion` or
/// `distributedInfo`, a "PP:" range, or `_dump_chrometrace`'s computation/communication slices)
/// rather than one Stagecraft wrote (`otherData.stagecraft_trace`). Looks at the first 64 KiB.
bool looksLikeTorchTrace(std::string_view text);

/// True when `text` (any part of a trace) holds one of torch's marks: a Kineto `schemaVersion` or
/// `distributedInfo`, a "PP:" range, or `_dump_chrometrace`'s computation/communication slices.
/// For a file whose first 64 KiB say neither torch nor Stagecraft (a merged trace that opens with
/// thousands of other events), the rest of it decides.
bool namesTorchActions(std::string_view text);

} // namespace stagecraft
