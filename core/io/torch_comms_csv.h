#pragma once
// torch.distributed.pipelining's compute+comms CSV ("format=compute_comms" of _dump_csv /
// _load_csv): no header, row i is rank i, each cell one action in execution order: compute
// actions ("2F0", "2I0", "2W0", "2B0", "(0F7;7B3)OVERLAP_F_B") and the lowered ones: "2SEND_F3"
// (stage 2 sends mb 3's activation to stage 3), "3RECV_F3", "3SEND_B3", "2RECV_B3", "1UNSHARD",
// "1RESHARD", "1REDUCE_GRAD" and the waits torch 2.15 writes, "2WAIT_SEND_F3",
// "1WAIT_REDUCE_GRAD". The mapping onto Stagecraft's programs is in docs/lowering.md.

#include "io/torch_csv.h"
#include "passes/lower.h"
#include "passes/program.h"

#include <string>
#include <string_view>

namespace stagecraft {

/// One row per rank, one cell per instruction, each row ending in '\n'. The optimizer steps that
/// end a program are left out (torch steps its optimizer after the schedule); GradSync is
/// REDUCE_GRAD. Throws ValidationError("csv.bidirectional") for two pipes and
/// ValidationError("csv.optimizer") for an optimizer step before the end of a program.
std::string programsToTorchCommsCsv(const Lowered& lowered);

/// As above, with the slots of `schedule` (the schedule the programs were lowered from) written as
/// torch writes them: an overlapped slot's compute instructions, when they follow each other, as
/// one `(0F3;3B1)OVERLAP_F_B` cell and a whole backward of a split schedule (B then its W) as
/// `3B1`. What torch's own lowering of DualPipeV writes (passes/lower_torch.h).
std::string programsToTorchCommsCsv(const Lowered& lowered, const Schedule& schedule);

struct TorchCommsCsvOptions {
    OverlapPolicy overlap = OverlapPolicy::Refuse; ///< compound OVERLAP_F_B cells
    std::string name = "torch-comms-csv";          ///< name of the programs read
    LowerOptions lower;                            ///< bytes per stage boundary
};

/// Reads a compute+comms CSV into programs, annotated as `lower` annotates its own (peers, tags,
/// slots, groups, buffers, collectives; `matches` stays empty: the replay checks the order). The
/// compute cells must form a valid compute-only schedule (see parseTorchCsv, whose errors keep
/// their row and column). Every transfer between ranks needs its SEND on the producer's rank and
/// its RECV on the consumer's, once each; neighbouring stages on one rank need none. When the
/// file reduces gradients (REDUCE_GRAD), each rank's program ends with one optimizer step per
/// stage, as lower(addIterationTail(...)) has. Malformed cells, transfers that do not fit the
/// schedule and waits on nothing throw ParseError with the 1-based row (line) and cell (column).
Lowered parseTorchCommsCsv(std::string_view text, const std::string& source,
                           const TorchCommsCsvOptions& options = {});

/// True when `text` holds any of torch's lowered actions (SEND_, RECV_, REDUCE_GRAD, UNSHARD,
/// RESHARD, WAIT_): a compute+comms file rather than a compute-only one.
bool looksLikeTorchCommsCsv(std::string_view text);

} // namespace stagecraft
