#pragma once
// The program each rank of a torch.distributed.pipelining run executed, read from its trace: the
// runtime wraps every action in a `PP:<action>` range, so one iteration's ranges of a rank, in
// time order, are that rank's row of torch's compute+comms schedule. Read back through the
// compute+comms reader, they become the Lowered programs the runtime fit times
// (eval/runtime_fit.h): what ran, not what a lowering would have planned.

#include "io/measured_run.h"
#include "passes/program.h"

#include <string>
#include <vector>

namespace stagecraft {

/// torch's action name of a range: "2F0", "1SEND_B3", "0WAIT_SEND_F1", "3REDUCE_GRAD"; empty for
/// an action the compute+comms format has no name for (WAIT_RECV_*, WAIT_REDUCE_GRAD).
std::string torchActionName(const ActionRange& range);

/// Complete iterations of a run: the fewest occurrences of any compute action on its rank.
int completeIterations(const std::vector<RankTrace>& ranks);

/// The ranges of iteration `iteration` of one rank, in time order.
std::vector<const ActionRange*> iterationActions(const RankTrace& rank, int iteration);

/// One iteration's actions of each rank in time order, as compute+comms CSV text (row r = rank r of
/// `ranks`, which must be in rank order with every range's stage known). The k-th occurrence of an
/// action on a rank belongs to iteration k.
std::string executedActionsCsv(const std::vector<RankTrace>& ranks, int iteration);

/// The programs of `executedActionsCsv`, read with the compute+comms reader (one byte per transfer:
/// the fit times transfers by their measured time, not their size). Throws what that reader throws
/// when the actions do not form torch programs (a trace without SEND/RECV ranges, such as
/// ScheduleGPipe's and Schedule1F1B's, which run a fixed loop).
Lowered executedPrograms(const std::vector<RankTrace>& ranks, int iteration, const std::string& source);

/// True when the run recorded its transfers as actions (torch's runtime classes: `PP:` SEND/RECV
/// ranges), so that its programs can be read off the trace.
bool recordsTransfers(const std::vector<RankTrace>& ranks);

/// The programs a run executed: read off the trace (executedPrograms) when it records its
/// transfers; otherwise, for ScheduleGPipe's own labels (one stage per rank, every forward before
/// every backward), torch's GPipe loop on the order the ranges show (passes/lower_torch.h).
/// Anything else is refused (trace.shape) with what would make it readable.
Lowered programsOfRun(const std::vector<RankTrace>& ranks, const std::string& source);

} // namespace stagecraft
