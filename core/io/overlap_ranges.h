#pragma once
// torch's OVERLAP_F_B action (DualPipeV, "PP:(0F3;3B1)OVERLAP_F_B"): one range in which torch's
// runtime runs the forward of one stage (its receive wait, then the forward) and then the whole
// backward of another (its receive wait, then the backward), unless a custom overlap function is
// registered. A reader turns the range into two ActionRanges, its halves, and times them apart
// here:
//  * where the trace shows it, at the start of the backward: the first autograd engine event
//    inside the range ("autograd::engine::evaluate_function: ..."); the forward ends with the last
//    CPU op that began before it, and the time between is the backward's receive wait;
//  * otherwise (no CPU ops: an NVTX export, a GPU-only trace, torch's _dump_chrometrace grid) by
//    the rule the simulator divides a slot by (list_scheduler.h, splitSlots): in proportion to
//    the durations the same ops take where they run alone in the trace, in two equal parts when
//    the trace has none.

#include "io/measured_run.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stagecraft {

/// Parses "(0F3;3B1)OVERLAP_F_B", without the "PP:" prefix. Returns 0 when `name` is no compound
/// action (it does not start with '('), 1 when it parsed into its halves (kind, stage, micro-batch
/// and `overlap` set; times left to the caller), -1 with `why` when it is one but malformed or
/// does not pair one forward (F) with one whole backward (B).
int parseOverlapRangeName(std::string_view name, ActionRange& forward, ActionRange& backward,
                          std::string* why);

/// The CPU activity of one process as a host trace records it: enough to find where the backward
/// of an overlap range began. Events may be added in any order.
class HostActivity {
  public:
    /// A CPU op (Kineto's `cpu_op`) from `start` to `end`. Nested and overlapping ops are kept as
    /// their union, so memory follows the top-level ops.
    void addOp(double start, double end);
    /// The start of an autograd engine event: the backward is running.
    void addBackwardStart(double start);
    /// Sorts and merges what was added; call once before splitPoint.
    void finish();
    /// Where the forward of the overlap range [start, end] ended: returns false when no backward
    /// event began inside the range, else sets `forwardEnd` (start <= forwardEnd <= the
    /// backward's start).
    bool splitPoint(double start, double end, double& forwardEnd) const;

  private:
    std::vector<std::pair<double, double>> m_busy; ///< union of the ops, by start once finished
    std::vector<double> m_backward;
    bool m_sorted = true;
};

/// Sets the halves of one overlap range, both holding the whole range, to [start, forwardEnd]
/// and [forwardEnd, end].
void splitOverlapAt(ActionRange& forward, ActionRange& backward, double forwardEnd);

/// True for the forward half at `i` of `ranges` whose backward half follows it and which still
/// holds the whole range (not yet split).
bool isWholeOverlap(const std::vector<ActionRange*>& ranges, std::size_t i);

/// Divides every overlap range of one rank still whole (pairs adjacent in `ranges`, forward half
/// first) in proportion to the median durations of the stand-alone ranges of `ranges` of the same
/// ops: the forward's (F, stage), the backward's (B, stage), or its I and W together when the
/// stage never ran a whole backward alone. Equal parts when a median is missing. Returns how many
/// were divided.
std::size_t divideWholeOverlaps(const std::vector<ActionRange*>& ranges);

} // namespace stagecraft
