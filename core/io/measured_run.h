#pragma once
// What every reader of a foreign trace (torch profiler, torch's _dump_chrometrace, Nsight Systems)
// produces, and how those ranges become one measured Timeline. A reader only finds the ranges
// named with a pipeline action on each rank ("PP:2F0", "PP:1RECV_B0", "F3.1" ...) and their times;
// assembleMeasuredRun does the rest once for all of them: ranks, iterations, clock alignment, the
// shape of the schedule, transfers and the time spent waiting for the peer.

#include "io/chrome_trace.h"
#include "sim/timeline.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft {

/// The pipeline actions a trace range can name: torch's compute and communication types.
enum class RangeKind : std::uint8_t {
    F,
    I, ///< input-gradient half of a split backward
    B, ///< whole backward
    W, ///< weight-gradient half
    SendF,
    RecvF,
    SendB,
    RecvB,
    Other, ///< WAIT_RECV_*, WAIT_REDUCE_GRAD: counted, never matched
    // torch's bookkeeping actions: counted, never matched to an op of the timeline, but part of
    // the program a rank executed (the runtime fit times them).
    WaitSendF,  ///< WAIT_SEND_F: the rank waits until its forward send left
    WaitSendB,  ///< WAIT_SEND_B
    ReduceGrad, ///< REDUCE_GRAD: the stage's gradients scaled (or reduced with FSDP)
    Unshard,    ///< UNSHARD (FSDP; otherwise almost nothing)
    Reshard,    ///< RESHARD
    /// A recompute: stagecraft-run names it "2R0" (torch has no such action); read as an R op of
    /// the timeline, never fitted as a torch primitive.
    R,
};

/// F, I, B or W: the compute actions torch names (a recompute, R, is none of them).
bool isComputeRange(RangeKind kind);
/// An action that is neither compute nor a transfer (WAIT_*, REDUCE_GRAD, UNSHARD, RESHARD).
bool isBookkeepingRange(RangeKind kind);
/// torch's name of a range kind: "F", "SEND_F", "WAIT_SEND_B", "REDUCE_GRAD", "UNSHARD"; "other"
/// for Other (WAIT_RECV_*, WAIT_REDUCE_GRAD).
const char* rangeKindName(RangeKind kind);

/// Which half of a torch OVERLAP_F_B range a range is. DualPipeV's `(0F3;3B1)OVERLAP_F_B` runs
/// the forward of one stage and then the whole backward of another in one range; a reader turns
/// it into two ranges, its halves (io/overlap_ranges.h says how they are timed apart).
enum class OverlapHalf : std::uint8_t { None, Forward, Backward };

/// One named range of one rank, in that rank's clock (µs).
struct ActionRange {
    RangeKind kind = RangeKind::F;
    int stage = 0;  ///< -1: given by `chunk` and the rank (Megatron/zero-bubble names carry no stage)
    int mb = -1;    ///< -1 for Other
    int chunk = -1; ///< the model chunk of the rank, when `stage` is -1
    double start = 0;
    double end = 0;
    std::uint32_t event = 0; ///< index of the event in its file, for messages
    /// µs at the start of a compute range spent waiting for a received input (torch's runtime
    /// waits for its RECV inside the consuming F/B/I range: the trace's `gloo:recv` span ends
    /// there). The op itself ran from `start + wait` to `end`.
    double wait = 0;
    /// The half of an OVERLAP_F_B range this range is; None for every other range.
    OverlapHalf overlap = OverlapHalf::None;
};

/// The ranges one file (or one rank of a file) holds.
struct RankTrace {
    std::string source; ///< file name, for messages
    int rank = -1;      ///< from the file (distributedInfo, pid, TARGET_INFO), -1 unknown
    std::vector<ActionRange> ranges;
    std::string clock = "cpu"; ///< "cpu" host time or "gpu" kernel time
    /// The machine whose clock stamped the file (Kineto's `host_name`); empty when the file does
    /// not say. Ranks that name one host share its clock, so their times are not aligned.
    std::string host;
    /// OVERLAP_F_B ranges whose halves were divided by the stand-alone rule because the trace did
    /// not show where the backward began (io/overlap_ranges.h).
    std::size_t overlapsByRule = 0;
    /// Point-to-point transfers the file records outside any pipeline action (gloo's
    /// `gloo:send`/`gloo:recv`): a run whose compute carries no label still shows them, so a
    /// refusal can say what the file is and how to label it.
    std::size_t transferRecords = 0;
    /// Where each recording joined into this trace begins (µs on the host's clock, ascending;
    /// joinRepeatedRecordings): empty for a trace of one recording. Repeats of a run may run at
    /// different speeds, so what varies within a recording is told from what varies between them.
    std::vector<double> recordingStarts;
};

/// Rank traces (ranks known) with one trace per rank, in rank order: several traces of one rank
/// whose times follow one another (repeated recordings of the run, new processes one after the
/// other on one machine) become one, their iterations counted on in time order. Traces of one rank
/// that overlap in time are refused (trace.shape).
std::vector<RankTrace> joinRepeatedRecordings(std::vector<RankTrace> ranks);

/// How several iterations of one trace become one timeline.
enum class IterationPick : std::uint8_t {
    One,    ///< the iteration `iteration` (-1: the last)
    Median, ///< every op at the median over iterations of its start and end (from its iteration's start)
};

/// How (rank, chunk) names a stage, for traces whose ranges name a chunk rather than a stage.
enum class ChunkPlacement : std::uint8_t {
    Loop, ///< stage = chunk * ranks + rank (Megatron's interleaving)
    V,    ///< chunk 0 goes down the ranks, chunk 1 comes back: stage = rank or 2 * ranks - 1 - rank
};

struct MeasuredRunOptions {
    ChunkPlacement placement = ChunkPlacement::Loop;
    IterationPick pick = IterationPick::One;
    int iteration = -1;
    /// Move a rank's clock forward when a cross-rank dependency would otherwise go back in time
    /// (a consumer starting before its producer ended): hosts' clocks can differ.
    bool alignClocks = true;
};

/// What the reading found besides the timeline.
struct MeasuredRunInfo {
    int ranks = 0;
    int iterations = 0; ///< complete iterations found
    int iteration = -1; ///< the one read (-1 when the median was taken)
    /// Each complete iteration's makespan (the first compute range of any rank to the last one's
    /// end, clocks aligned), µs: how much the run varied (sim/statistics.h's medianInterval).
    std::vector<double> iterationMakespans;
    std::vector<double> clockShift; ///< µs added to each rank's clock
    std::size_t computeRanges = 0;  ///< F/I/B/W ranges of the iteration(s) read
    std::size_t commRanges = 0;     ///< SEND/RECV ranges of the iteration(s) read
    std::size_t otherRanges = 0;    ///< UNSHARD, WAIT_SEND_* ... ranges, not matched
    /// Measured communication time (every SEND and RECV range of the iteration read) and the part
    /// of it spent before the peer's matching range began: waiting for the peer, not moving data.
    double commTime = 0;
    double commWaitTime = 0;
    std::string clock = "cpu";
    /// Stages whose REDUCE_GRAD range is their gradient sync in the timeline (torch's runtime
    /// scales, or with FSDP reduces, a stage's gradients there).
    std::size_t syncRanges = 0;
    /// Overlapped F&B slots (OVERLAP_F_B ranges) of the timeline, and of all the trace's overlap
    /// ranges how many were divided by the stand-alone rule.
    std::size_t overlapSlots = 0;
    std::size_t overlapsByRule = 0;
    /// torch's bookkeeping actions of the iteration(s) read (WAIT_SEND_*, UNSHARD, RESHARD, other),
    /// in RangeKind order: what the runtime spent outside compute, transfers and gradient syncs.
    struct Bookkeeping {
        RangeKind kind = RangeKind::Other;
        std::size_t ranges = 0;
        double time = 0; ///< µs, of the iteration read (the median pick: each action's median), all ranks
    };
    std::vector<Bookkeeping> bookkeeping;
};

/// How much the run's iterations varied, in words, for every front end (times as durationText
/// writes them): "8 iterations of 57.23 ms to 117.1 ms; their median 69.21 ms, within 58.24 ms to
/// 85.12 ms (95 %, ±19 %)"; "" for fewer than 3.
std::string iterationSpreadText(const MeasuredRunInfo& info);

/// Assembles the ranks' ranges into one measured Timeline (origin "measured", schedule name
/// empty). Ranks: the files' own ranks when every file names one, otherwise the order given; a
/// rank named twice, or a stage run on two ranks, is refused (trace.shape). The k-th occurrence of
/// an action on a rank belongs to iteration k; only iterations every action completed are kept.
/// Shape: devices = ranks; stages and micro-batches one more than the largest seen; the backward
/// is split when I or W ranges appear. Times start at 0 at the iteration's first op.
/// In a split run, a B range next to I ranges is a whole backward (torch's B in DualPipeV): it
/// becomes a B and a W event, divided in proportion to the stage's stand-alone I and W. The halves
/// of an OVERLAP_F_B range become the slot's F and backward events, the F listed in
/// `shape.overlapped` (ir/overlap.h). REDUCE_GRAD ranges become the GradSync events of their
/// stages (communication lane, as the simulator places syncs).
/// Throws ParseError("trace.unlabelled") when no range names a compute action but the files
/// record transfers (torch's Schedule1F1B labels nothing), ParseError("trace.empty") without
/// compute ranges otherwise, and ("trace.iteration") for an iteration the trace does not hold.
Timeline assembleMeasuredRun(std::vector<RankTrace> ranks, const MeasuredRunOptions& options = {},
                             MeasuredRunInfo* info = nullptr);

/// Throws the refusal of files none of whose ranges names a compute action: files that record
/// transfers are of a run whose compute carries no label (torch's Schedule1F1B wraps nothing in
/// record_function), and the message (trace.unlabelled) says how to label one; otherwise
/// trace.empty.
[[noreturn]] void refuseWithoutCompute(const std::vector<RankTrace>& ranks);

/// Parses a range name of a torch or Megatron/zero-bubble run: a torch action with or without the
/// "PP:" prefix ("PP:2F0", "1I3"), or "F{mb}.{chunk}" / "B{mb}.{chunk}" / "W{mb}.{chunk}" with an
/// optional ".{seq}" suffix (the zero-bubble runtime's NVTX names). Returns 0 for a name that is
/// none of these (an unrelated range: skipped), 1 when it parsed, -1 with `why` for a name that
/// claims to be one ("PP:" prefix) but is malformed.
int parsePipelineRangeName(std::string_view name, ActionRange& range, std::string* why);

/// Parses a torch action name into a range kind, stage and micro-batch: "2F0", "1I3", "0SEND_F1",
/// "3RECV_B0", "0UNSHARD", "1REDUCE_GRAD", "2WAIT_SEND_F1". Returns false with `why` for text
/// that is not one (a compound "(0F3;7B2)OVERLAP_F_B" included: parseOverlapRangeName reads it).
bool parseRangeName(std::string_view name, ActionRange& range, std::string* why);

} // namespace stagecraft
