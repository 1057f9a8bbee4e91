#include "error_ids.h"

#include <algorithm>
#include <array>

namespace stagecraft {
namespace {

constexpr auto In = ErrorClass::Input;
constexpr auto Fail = ErrorClass::Failure;

// Sorted by id (checked by a test): lookups are binary searches.
constexpr std::array kIds{
    ErrorIdInfo{"calibrate.options", In,
                "a calibration option out of its range (B's share of a whole backward)"},
    ErrorIdInfo{"calibrate.trace", In,
                "a measured trace cannot be fitted (a stage without F or B ops; a GPU run for the CPU "
                "runtime model; overlapped halves a trace without CPU ops cannot time apart)"},
    ErrorIdInfo{"chart.devices", In, "a timeline names a device beyond the rows a chart can hold"},
    ErrorIdInfo{"chart.mapping", In,
                "a chart's time mapping asked to fit an empty range or zoom by a bad factor"},
    ErrorIdInfo{"chart.palette", In, "unknown chart style or palette name"},
    ErrorIdInfo{"chart.panels", In, "a chart was asked for without timelines to draw"},
    ErrorIdInfo{"chart.time", In, "the chart's time range is negative or not finite"},
    ErrorIdInfo{"chart.width", In, "the chart width is out of range or too narrow for its labels"},
    ErrorIdInfo{"cli.format", In, "an output format the command cannot write (file extension)"},
    ErrorIdInfo{"cli.like", In,
                "options of torch's lowering without --like torch, or --like torch on programs"},
    ErrorIdInfo{"cli.schedule", In, "a command needs a schedule name or file that was not given"},
    ErrorIdInfo{"cli.trace", In, "a command needs a measured trace that was not given"},
    ErrorIdInfo{"costs.analytic", In, "the analytic cost model cannot use the model or cluster as given"},
    ErrorIdInfo{"costs.devices", In, "the schedule's device count differs from the project's pipeline size"},
    ErrorIdInfo{"costs.recompute", In,
                "memory.recompute = full for a schedule that places its own recompute (R) ops"},
    ErrorIdInfo{"costs.slice_costs", In, "costs.slice_costs has not one entry per sequence slice"},
    ErrorIdInfo{"costs.slices", In, "the sequence has fewer tokens than the split needs slices"},
    ErrorIdInfo{"costs.stages", In, "a per-stage cost override names a stage the schedule does not have"},
    ErrorIdInfo{"csv.bidirectional", In, "a schedule with two pipes cannot be written as a torch CSV"},
    ErrorIdInfo{"csv.cell", In, "a torch CSV cell is not a valid action"},
    ErrorIdInfo{"csv.comms", In, "a communication action in a compute-only torch CSV"},
    ErrorIdInfo{"csv.count", In, "a torch CSV breaks torch's counts: m forwards and one backward per stage"},
    ErrorIdInfo{"csv.duplicate", In, "a torch CSV runs one action twice"},
    ErrorIdInfo{"csv.empty", In, "a torch CSV holds no action"},
    ErrorIdInfo{"csv.message", In,
                "a torch compute+comms CSV transfer that does not fit the schedule, or a missing one"},
    ErrorIdInfo{"csv.optimizer", In,
                "an optimizer step before the end of a program, which torch's CSV cannot express"},
    ErrorIdInfo{"csv.overlap", In,
                "an OVERLAP_F_B cell that is not one F and one whole B, or one where overlaps are refused"},
    ErrorIdInfo{"csv.pipe", In, "a torch CSV cell names a second pipe, which torch cannot express"},
    ErrorIdInfo{"csv.recompute", In, "a schedule with recompute (R) ops written as a torch CSV"},
    ErrorIdInfo{"csv.row", In, "a torch CSV row is malformed"},
    ErrorIdInfo{"csv.schedule", In, "a well-formed torch CSV whose order breaks a schedule rule"},
    ErrorIdInfo{"csv.size", In, "a torch CSV file is too large"},
    ErrorIdInfo{"csv.slices", In, "a schedule with sequence slices (Seq1F1B) written as a torch CSV"},
    ErrorIdInfo{"csv.stage", In, "a stage appears on two ranks, or stages are not numbered 0..S-1"},
    ErrorIdInfo{"csv.sync", In, "a torch CSV's WAIT_REDUCE_GRAD comes before its stage's REDUCE_GRAD"},
    ErrorIdInfo{"csv.wait", In, "a torch WAIT_* action with nothing posted before it to wait for"},
    ErrorIdInfo{"drawlist.window", In, "a timeline view window with a non-finite or non-positive scale"},
    ErrorIdInfo{"edit.broken", In,
                "an edit of `stagecraft-cli edit` breaks a dependency or makes devices deadlock"},
    ErrorIdInfo{"edit.json", In, "an edit in JSON form with a missing, mistyped or unknown field"},
    ErrorIdInfo{"edit.list", In, "an edit list file that is malformed, of another version, or names no base"},
    ErrorIdInfo{"edit.op", In, "an edit names an op the schedule does not hold, or one it cannot apply to"},
    ErrorIdInfo{"edit.preview", Fail,
                "the window could not preview a dragged op's order (no panel to show it in, or its analysis "
                "gave no result)"},
    ErrorIdInfo{"edit.schedule", In,
                "a schedule hand edits cannot work on (syncs, optimizer steps, overlapped slots)"},
    ErrorIdInfo{"edit.slot", In,
                "an edit that would take a whole backward apart, or a merge whose W is not next"},
    ErrorIdInfo{"edit.syntax", In, "an edit's text form does not follow the edit grammar"},
    ErrorIdInfo{"edit.target", In, "an edit's target is on another device, out of range, or not a neighbour"},
    ErrorIdInfo{
        "eval.input", In,
        "a front end's inputs that do not go together (two projects, a schedule name with a schedule file)"},
    ErrorIdInfo{"export.dpi", In, "a raster export resolution out of range"},
    ErrorIdInfo{"export.empty", In, "nothing to export: no schedule is shown"},
    ErrorIdInfo{"export.format", In, "an export format this program cannot write"},
    ErrorIdInfo{"export.render", Fail, "the renderer could not draw the chart"},
    ErrorIdInfo{"export.size", In, "a raster export would be larger than the limit in pixels"},
    ErrorIdInfo{"export.width", In, "an export width out of range"},
    ErrorIdInfo{"export.write", Fail, "an exported file could not be written"},
    ErrorIdInfo{"fit.field", In, "a runtime fit file with a missing field or a value out of its rule"},
    ErrorIdInfo{"fit.json", In, "a runtime fit file is not valid JSON (line and column given)"},
    ErrorIdInfo{"fit.processors", In,
                "a fit was given a fraction of a processor per rank (0, or 1 and more)"},
    ErrorIdInfo{"fit.version", In, "a runtime fit file of another format version"},
    ErrorIdInfo{"generator.constraint", In,
                "the parameters break a schedule's rule (e.g. microbatches % pp)"},
    ErrorIdInfo{"generator.costs", In,
                "stage costs given to a generator are not one finite, positive set per stage"},
    ErrorIdInfo{"generator.memory", In,
                "a generator's memory limit is negative, not finite or below one activation"},
    ErrorIdInfo{"generator.range", In, "a schedule parameter out of its range, or too many ops"},
    ErrorIdInfo{"io.kind", In,
                "a file of another kind than the command reads (a trace given as a project); the message "
                "names what it is and what reads it"},
    ErrorIdInfo{"io.read", In, "a file could not be read (missing, unreadable, too large)"},
    ErrorIdInfo{"io.write", Fail, "a file could not be written; the previous file is intact"},
    ErrorIdInfo{"lower.bytes", In, "bytes per stage boundary that do not fit the schedule"},
    ErrorIdInfo{"lower.deadlock", In,
                "per-rank programs whose ranks wait on each other in a ring (NCCL or MPI semantics)"},
    ErrorIdInfo{"lower.mismatch", In,
                "two ranks' transfers matched in order exchange different tensors (NCCL FIFO)"},
    ErrorIdInfo{"lower.order", In,
                "a program uses a tensor or sync before an earlier instruction of its rank provides it"},
    ErrorIdInfo{"lower.torch", In,
                "a schedule or option torch's lowering refuses (two pipes, non-compute ops, a send budget no "
                "wait placement meets)"},
    ErrorIdInfo{"lower.unmatched", In, "a send or receive whose counterpart no rank posts"},
    ErrorIdInfo{"memory.inputs", In, "memory inputs that do not match the schedule's stages"},
    ErrorIdInfo{"option.conflict", In,
                "command-line options that do not go together (--width with --columns)"},
    ErrorIdInfo{"option.value", In,
                "a command-line option's value breaks its rule (a range, a list of choices, given twice)"},
    ErrorIdInfo{"overlay.mismatch", In, "a measured trace does not match the predicted schedule"},
    ErrorIdInfo{"project.field", In, "a project field out of its range or breaking a cross-field rule"},
    ErrorIdInfo{"project.json", In, "a project file is not valid JSON (line and column given)"},
    ErrorIdInfo{"project.key", In, "an unknown key in a project file"},
    ErrorIdInfo{"project.layers", In, "the model's layers do not split into the schedule's stages"},
    ErrorIdInfo{"project.range", In, "a project number does not fit the field's integer range"},
    ErrorIdInfo{"project.section", In, "a project file lacks a section it needs (model, cluster ...)"},
    ErrorIdInfo{"project.set", In, "a --set path or value that is not a project field or its kind"},
    ErrorIdInfo{"project.type", In, "a project value of the wrong JSON type"},
    ErrorIdInfo{"project.version", In, "a project file of an unknown or newer format version"},
    ErrorIdInfo{"runtime.backend", In,
                "stagecraft-run --backend cuda where no CUDA device or CUDA build is present"},
    ErrorIdInfo{"runtime.costs", In,
                "the sleep workload asked for with unit costs, which have no microseconds"},
    ErrorIdInfo{"runtime.gpus", In,
                "stagecraft-run --transport nccl with more ranks on a host than its GPUs"},
    ErrorIdInfo{"runtime.iterations", In,
                "stagecraft-run with fewer than one measured iteration or negative warm-up"},
    ErrorIdInfo{"runtime.ranks", In,
                "mpirun started another number of processes than the schedule has ranks"},
    ErrorIdInfo{"runtime.scale", In, "stagecraft-run --scale outside (0, 1]"},
    ErrorIdInfo{"runtime.tp", In,
                "stagecraft-run asked to run a project with tensor parallelism (one device per rank)"},
    ErrorIdInfo{"schedule.deadlock", In, "a schedule whose devices wait on each other in a ring"},
    ErrorIdInfo{"schedule.duplicate", In, "a schedule runs one op twice"},
    ErrorIdInfo{"schedule.missing", In, "a schedule lacks an op"},
    ErrorIdInfo{"schedule.more", In, "more problems than were listed"},
    ErrorIdInfo{"schedule.op", In, "an op names a stage, micro-batch or pipe the schedule does not have"},
    ErrorIdInfo{"schedule.order", In, "an op before one it depends on on the same device"},
    ErrorIdInfo{"schedule.overlap", In,
                "an overlapped forward-backward slot that is not an F followed by a whole backward"},
    ErrorIdInfo{"schedule.recompute", In,
                "a recompute (R) without its forward, or out of its forwards' order on a chunk"},
    ErrorIdInfo{"schedule.shape", In, "a schedule's shape and placement disagree"},
    ErrorIdInfo{"schedule.sync", In, "gradient syncs or optimizer steps out of place"},
    ErrorIdInfo{"schedule.unknown", In, "an unknown schedule name"},
    ErrorIdInfo{"schedule_file.extension", In, "a schedule file that is neither .csv nor .json"},
    ErrorIdInfo{"schedule_json.field", In, "a schedule JSON field of the wrong type or range"},
    ErrorIdInfo{"schedule_json.schedule", In,
                "a well-formed schedule JSON whose order breaks a schedule rule"},
    ErrorIdInfo{"schedule_json.size", In, "a schedule JSON file is too large"},
    ErrorIdInfo{"schedule_json.syntax", In, "a schedule JSON file is not valid JSON (line and column given)"},
    ErrorIdInfo{"schedule_json.version", In, "a schedule JSON file of an unknown format version"},
    ErrorIdInfo{"search.costs", In, "a configuration search asked of a project without analytic costs"},
    ErrorIdInfo{"search.evaluate", Fail,
                "a configuration could not be evaluated for a reason other than its input"},
    ErrorIdInfo{"search.space", In,
                "a search option out of range (GPUs, batch sizes, schedules, ZeRO stages ...)"},
    ErrorIdInfo{"timeline.mismatch", In, "two timelines (or a timeline and a schedule) of different shapes"},
    ErrorIdInfo{"timing.cost", In,
                "programs to time have a compute op whose stage and kind the costs do not give (an I or W "
                "from a run that did not split the backward)"},
    ErrorIdInfo{"timing.deadlock", In, "programs to time in which a rank waits for a transfer never posted"},
    ErrorIdInfo{"trace.container", In,
                "a Chrome trace that is neither an event array nor an object with traceEvents"},
    ErrorIdInfo{"trace.empty", In, "a Chrome trace without a Stagecraft op"},
    ErrorIdInfo{"trace.event", In, "a trace event that is malformed or names an impossible op"},
    ErrorIdInfo{"trace.iteration", In,
                "an iteration a trace does not hold was asked for (the message lists those it holds)"},
    ErrorIdInfo{"trace.json", In, "a trace file is not valid JSON (line and column given)"},
    ErrorIdInfo{"trace.limit", In, "a trace beyond the limits (slices, indices)"},
    ErrorIdInfo{"trace.shape", In, "a trace's schedule shape is missing or inconsistent"},
    ErrorIdInfo{"trace.sqlite", In,
                "an Nsight Systems SQLite export that cannot be opened or has no NVTX ranges"},
    ErrorIdInfo{"trace.unlabelled", In,
                "a torch trace whose compute is not labelled with pipeline actions (Schedule1F1B); says how "
                "to label it"},
    ErrorIdInfo{"trace.version", In, "a trace of an unknown format version"},
    ErrorIdInfo{"trace.write", Fail, "a trace could not be written"},
    ErrorIdInfo{"work.cancelled", Fail,
                "long work (a generator's search, an analysis) was stopped by its Cancel before it finished"},
};

constexpr bool sortedById() {
    for (std::size_t i = 1; i < kIds.size(); ++i)
        if (!(kIds[i - 1].id < kIds[i].id)) return false;
    return true;
}
static_assert(sortedById(), "keep kIds sorted by id");

} // namespace

std::span<const ErrorIdInfo> errorIds() {
    return kIds;
}

const ErrorIdInfo* findErrorId(std::string_view id) {
    const auto it = std::lower_bound(kIds.begin(), kIds.end(), id,
                                     [](const ErrorIdInfo& e, std::string_view v) { return e.id < v; });
    return it != kIds.end() && it->id == id ? &*it : nullptr;
}

ErrorClass errorClassOf(const Error& error) {
    if (dynamic_cast<const ParseError*>(&error) || dynamic_cast<const ValidationError*>(&error))
        return ErrorClass::Input;
    const ErrorIdInfo* info = findErrorId(error.id());
    return info ? info->errorClass : ErrorClass::Failure;
}

} // namespace stagecraft
