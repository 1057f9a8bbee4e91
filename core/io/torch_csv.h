#pragma once
// torch.distributed.pipelining's compute-only schedule CSV ("format=compute_only" of _dump_csv /
// _load_csv): no header, row i is rank i, each cell one action string in execution order, an
// empty cell a deliberate idle step. Only single-pipe schedules fit: torch's actions cannot name a
// second pipe. The format is described in docs/schedule-files.md.

#include "ir/schedule.h"

#include <string>
#include <string_view>

namespace stagecraft {

/// What to do with torch's compound `(0F7;7B3)OVERLAP_F_B` cells (DualPipeV runs a forward and a
/// whole backward of two stages overlapped in one slot).
enum class OverlapPolicy {
    Keep,      ///< an overlapped slot of the schedule (ir/overlap.h); a compound cell that is not
               ///< one F and one whole B is a ParseError
    Serialize, ///< read the sub-actions one after the other, in the order written
    Refuse,    ///< ParseError naming the cell
};

struct TorchCsvOptions {
    OverlapPolicy overlap = OverlapPolicy::Keep;
    std::string name = "torch-csv"; ///< name of the schedule read
};

/// One row per device, the device's compute ops as action strings (F -> "0F1"; B -> "0I1" when
/// the schedule splits the backward, else "0B1"; W -> "0W1"), each row ending in '\n'. An
/// overlapped slot is one `(0F7;7B3)OVERLAP_F_B` cell (its backward is whole: "B").
/// GradSync and Optimizer ops are not compute-only actions and are left out (torch adds its
/// REDUCE_GRAD when it lowers the schedule). Throws ValidationError("csv.bidirectional") for a
/// schedule with two pipes and ValidationError("csv.recompute") for one with recompute ops.
std::string scheduleToTorchCsv(const Schedule& schedule);

/// Throws ValidationError("csv.recompute") for the recompute `op` (its name, "2R0") at `where`:
/// torch's action set has no recompute, so no torch CSV can hold one.
[[noreturn]] void refuseTorchRecompute(const std::string& where, const std::string& op);

/// Reads a compute-only CSV. The placement is inferred from the file (a stage runs on the rank of
/// the row it appears in; stages 0..S-1; a rank's stages are its chunks in ascending stage order),
/// m is one more than the largest micro-batch index, and the backward is split when any I or W
/// appears (a full B of a split schedule becomes B immediately followed by W, one whole backward:
/// ir/overlap.h). torch's
/// `3REDUCE_GRAD` cells (its GPipe and 1F1B orders end every rank with one) become the stage's
/// GradSync where they stand; `3WAIT_REDUCE_GRAD` must follow its REDUCE_GRAD and adds no op.
/// Malformed cells and broken torch rules throw ParseError with the 1-based row (line) and cell
/// (column); a backward whose stage runs no forward of its micro-batch is blamed on its own cell
/// (the row that is wrong). A schedule that is well formed but fails the validator (wrong order,
/// deadlock) throws ValidationError("csv.schedule") naming the row and column of the op concerned.
Schedule parseTorchCsv(std::string_view text, const std::string& source, const TorchCsvOptions& options = {});

} // namespace stagecraft
