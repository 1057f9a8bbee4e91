#pragma once
// Calibration against the whole measured timeline of a torch.distributed.pipelining run: the
// costs of the runtime model (passes/program_timing.h) fitted to every action the ranks ran, and
// the prediction's error against a measured run action by action. docs/fidelity.md.
//
// The fit reads each primitive where the trace shows it alone:
//  - compute: per stage and kind (F, B, I, W), the median over iterations and micro-batches of the
//    op's own time: its range minus the wait for its received input that torch counts inside it;
//  - the framework's time between actions: the median gap between consecutive ranges of a rank;
//  - posting a receive or a send, a send's wait once done, REDUCE_GRAD, UNSHARD, RESHARD: the
//    median of their ranges (a WAIT_SEND's lower quartile: most of them block on the peer);
//  - a transfer: from the later of its two posts to its arrival (the end of the wait inside the
//    consumer), over the transfers the consumer did wait for (the others only bound it).
// Then the run's own programs are timed with those costs and compared with the run.

#include "eval/action_critical_path.h"
#include "eval/held_payloads.h"
#include "eval/post_stalls.h"
#include "generators/schedule_params.h"
#include "io/measured_run.h"
#include "passes/program.h"
#include "passes/program_timing.h"
#include "project/runtime_costs.h"
#include "project/runtime_fit_file.h"
#include "work_control.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

/// The files of one run named by `spec`: a comma-separated list, where an entry that is not a file
/// but the common prefix of torch's per-rank traces (`RUN` for `RUN_rank0.json`, `RUN_rank1.json`,
/// ...) stands for all of them, rank 0 up to the first missing one; failing that, the prefix of
/// repeated recordings of the run (`RUN_rep0_rank0.json`, ..., `RUN_rep1_rank0.json`, ...) stands
/// for every rank of every repeat, repeat 0 up to the first missing one. An entry that is neither
/// is an Error("io.read") naming both readings.
std::vector<std::filesystem::path> runFiles(const std::string& spec);

/// The run a file of a repeated recording belongs to: `RUN` for `.../RUN_rep<k>_rank<R>.json`,
/// "" for any other name (a front end that splits a list of files into runs keeps the repeats of
/// one run together).
std::string repeatedRunOf(const std::filesystem::path& file);

/// The ranks of one torch profiler run, one file per rank (or one file holding them all), in
/// rank order, host-timed. Several files of one rank whose times follow one another are repeated
/// recordings of the run (new processes, one after the other on one machine) and are joined, their
/// iterations counted on across the files; files of one rank that overlap in time are refused
/// (trace.shape), as are ranges named by a model chunk rather than a stage (the fit needs torch's
/// own `PP:` names). A run on GPUs (ranges that launched kernels, or Kineto's device copies of
/// them) is refused (calibrate.trace): its host ranges time launches, not the ops torch-gloo times.
std::vector<RankTrace> readTorchRun(const std::vector<std::filesystem::path>& paths);

/// What a rank's time in one iteration is made of, µs: the ops' own work, the waits for a
/// received input inside them, posting and waiting for transfers, bookkeeping actions, and the
/// rest (the framework between actions, and the wait before the rank's first action).
struct RankTime {
    double compute = 0, inputWait = 0, comm = 0, bookkeeping = 0, gaps = 0;
    double total() const { return compute + inputWait + comm + bookkeeping + gaps; }
};

/// One iteration of a run (measured, or predicted by timing programs), reduced to what the
/// fidelity checks compare.
struct RunSummary {
    double makespan = 0; ///< from the first action of any rank to the last one's end, µs
    double bubble = 0;   ///< 1 - compute / (ranks x makespan)
    /// A measured run's median makespan is of a few iterations that vary: the 95 % interval of that
    /// median (a bootstrap over its iterations, seeded, so the same run always gives the same
    /// interval), µs. Both 0 for a prediction or a run of fewer than 3 iterations.
    double makespanLow = 0, makespanHigh = 0;
    /// How far the makespans spread: the 10th and 90th percentile of a measured run's iterations, or
    /// of a prediction's draws of the spread, µs; both 0 for one timing. Draws that spread much wider
    /// than the run's iterations place stalls the run did not have (docs/fidelity.md).
    double makespanP10 = 0, makespanP90 = 0;
    std::vector<RankTime> ranks; ///< [rank]
    /// What the chain of actions and transfers that ends each iteration is made of (the median
    /// of each part over the iterations or draws): which of the ranks' time decided the makespan.
    ActionPathParts path;
    /// Each compute op: (kind, stage, mb) -> its start and end from the iteration's start.
    struct Op {
        RangeKind kind = RangeKind::F;
        int rank = 0, stage = 0, mb = 0;
        double start = 0, end = 0;
    };
    std::vector<Op> ops;
};

/// The median iteration of a measured run: per-iteration makespans, rank times and op times, each
/// the median over the run's complete iterations. Throws ParseError("trace.empty") without one.
RunSummary summarizeMeasured(const std::vector<RankTrace>& ranks);

/// The same summary of a predicted timing of programs.
RunSummary summarizePredicted(const Lowered& programs, const ProgramTiming& timing);

/// How many draws of the spread a prediction of `programs` is the median of: 257 (the median then
/// within about 1 % of the model's on a 4-rank run whose draws spread 12 %), fewer for programs of
/// more than about 3,900 instructions, whose draws spread less (at most a million instruction
/// timings in all), at least 3; always odd.
int drawsFor(const Lowered& programs);

/// The prediction of `programs` under `costs`: with a spread, the median over `replications`
/// timings (0: drawsFor(programs)), each a draw of the spread (seeds 1..replications; the same
/// every call), as the measured summary is the median over a run's iterations; without one, the
/// one timing.
RunSummary predictSummary(const Lowered& programs, const RuntimeCosts& costs, int replications = 0);

/// A prediction against a measurement.
struct FidelityReport {
    RunSummary measured, predicted;
    double makespanError = 0; ///< (predicted - measured) / measured
    /// Half the width of the measured median's interval over the median (0 when not known): an
    /// error within it is within the run's own noise.
    double measuredNoise = 0;
    double bubbleError = 0; ///< predicted - measured, in points of a fraction (0.03 = 3 points)
    /// The largest |predicted / measured - 1| of a rank's busy (compute) time, over the ranks both
    /// runs have (0.05 = one rank 5 % off).
    double busyError = 0;
    double opMape = 0; ///< mean absolute percentage error of the op durations
    /// How long the run's compute ops took against the prediction's, summed over the matched ops
    /// (measured / predicted; 1.1: the run's ops ran 10 % longer). Runs of one model on one machine
    /// differ in this alone by 10-20 % (docs/fidelity.md); it is the part of an error that the
    /// costs' speed makes, not the timing of the schedule.
    double opSpeed = 1;
    /// predictRun only: the prediction again with every compute cost times `opSpeed` (the run's
    /// own op speed), against the run. What is left is the timing of the schedule: waits,
    /// transfers, the framework's gaps and the order. A diagnosis, never a prediction (it reads
    /// the checked run's op times); `atRunSpeed` says it was computed.
    bool atRunSpeed = false;
    double makespanErrorAtRunSpeed = 0, bubbleErrorAtRunSpeed = 0;
    double startMae = 0; ///< mean absolute error of the op starts, µs
    std::size_t matchedOps = 0;
    /// The share of the makespan error each part of the rank that ends last makes up: its compute,
    /// input waits, communication actions, bookkeeping and gaps (predicted - measured, µs).
    RankTime criticalDelta;
    /// The rest of the makespan error, µs: how far each side's makespan runs past that rank's
    /// median time, predicted - measured. Every figure is a median over iterations (or draws), and
    /// an iteration ends with its slowest rank, which is not always this one nor at its median:
    /// the more the ranks' times vary apart, the further the median makespan runs past any one
    /// rank's median. With criticalDelta it sums to predicted - measured makespan.
    double criticalPastRank = 0;
    int criticalRank = 0;
};

FidelityReport compareRuns(const RunSummary& measured, const RunSummary& predicted);

/// The rank that ends `report`'s run last and its parts of the makespan error, as a fit file keeps
/// them (rank -1 for a report without ranks).
ResidualParts residualPartsOf(const FidelityReport& report);

struct RuntimeFit {
    RuntimeCosts costs;
    Lowered programs; ///< what the run executed (its first complete iteration's actions)
    int iterations = 0;
    std::size_t computeSamples = 0, gapSamples = 0, transferSamples = 0;
    /// The share of the ops' variation the ranks had in common (the correlation of ops that ran
    /// at the same time on different ranks): a slowdown of the machine, which stretches every rank
    /// alike and makes none wait; the spread keeps only the rest.
    double sharedVariation = 0;
    /// The run's posts that stalled (eval/post_stalls.h); the posts' spread holds them.
    PostStallCount postStalls;
    /// The run's send-first payloads its consumers waited long for, by what the sender was doing
    /// (eval/held_payloads.h); the timing gives every transfer the run's one transfer time.
    HeldPayloadCount heldPayloads;
    /// What the run could not show and the rule used instead, one sentence each.
    std::vector<std::string> notes;
    FidelityReport residual; ///< the run's own programs timed with the fit, against the run
};

/// What a measured run's transfers show about gloo's I/O threads on CPU ranks: its posts that
/// stalled (eval/post_stalls.h) and its send-first payloads held back (eval/held_payloads.h, past
/// the run's own median waited-for transfer), over its complete iterations. A fit counts its run
/// the same way; `fidelity` counts every checked run, so a miss can be read against them.
struct TransferContention {
    PostStallCount postStalls;
    HeldPayloadCount heldPayloads;
};
TransferContention measureContention(const std::vector<RankTrace>& ranks);

/// Fits the torch-gloo runtime model to a measured run of torch's `_PipelineScheduleRuntime`
/// (ranks in rank order, as read by readTorchTrace, with every stage known). Throws
/// ValidationError("calibrate.trace") when a stage has no F or no backward to fit, and what
/// executedPrograms throws for a trace without torch's transfer actions.
///
/// `processors`: how many processors the ranks shared, where the user knows it (0: each rank had
/// its own, as ranks pinned one per core or one GPU each; 2: four CPU ranks on two cores). Left
/// at kFindProcessors, the fit takes the count whose replay comes closest to the run.
constexpr double kFindProcessors = -1;
RuntimeFit fitRuntime(const std::vector<RankTrace>& ranks, const std::string& source,
                      double processors = kFindProcessors);

/// What a fit file (or a calibrated project's `runtime_fit`) keeps of `fit`, fitted on `source`.
RuntimeFitRecord recordOf(const RuntimeFit& fit, const std::string& source);

/// A held-out check: the programs `ranks` executed (another run of the same model), timed with
/// `costs` mapped onto its stage count (remapStages; a whole backward from I + W where the fit
/// split it), against that run's measurement. `notes` receives what was mapped.
FidelityReport predictRun(const RuntimeCosts& costs, const std::vector<RankTrace>& ranks,
                          const std::string& source, std::vector<std::string>* notes = nullptr);

/// Of `replications` timings of `programs` drawn from the costs' spread (seeds 1..replications;
/// 0: drawsFor(programs)), one near the median summary in makespan and bubble (within 1 % and 0.6
/// points of the nearest, against the acceptance's 5 % and 3 points) whose ops are nearest their
/// own median durations: a timeline to draw and measure that is neither a lucky nor an unlucky
/// draw, with no op drawn from the spread's far tail. Without a spread, the one timing.
ProgramTiming representativeTiming(const Lowered& programs, const RuntimeCosts& costs, int replications = 0);

/// A measured run and its prediction, to draw one above the other on one time axis: the run's
/// median iteration (assembleMeasuredRun, compute without the receive waits torch counts inside
/// its ranges) and a representative timing of the programs it executed, both from their first op.
struct RunTimelines {
    Timeline measured, predicted;
};
RunTimelines runTimelines(const RuntimeCosts& costs, const std::vector<RankTrace>& ranks,
                          const std::string& source);

/// A schedule timed as torch would run it on the fitted machine.
struct ScheduleTiming {
    std::string runtime;            ///< "runtime", "gpipe-loop", "1f1b-loop"; "stagecraft" for two pipes
    RunSummary summary;             ///< the predicted median iteration
    Timeline timeline;              ///< a representative timing (representativeTiming), to draw
    std::vector<std::string> notes; ///< how the costs were mapped onto the schedule
};

/// Lowers `schedule` as torch runs the class `registryName` (passes/lower_torch.h: the runtime's
/// action lists, or ScheduleGPipe's / Schedule1F1B's loop) and times it with `costs` mapped onto
/// its stages (remapStages; a split backward the fit did not measure: I = `inputShare` x B, stage
/// 0's I = 0 and W = B, as torch's first stage does). torch runs one pipe and has no recompute: a
/// schedule of two (Chimera, BitPipe) or with R ops is lowered Stagecraft's way (passes/lower.h)
/// and timed with the same costs, which says so in the notes. `schedule` has no GradSync or Optimizer ops
/// (torch's step has none). A longer program takes fewer draws of the spread (drawsFor, at least 3):
/// a long iteration's draws differ less. `control` (optional) gets the share of the draws done and stops the
/// work between draws (Error "work.cancelled"). Throws what the lowering throws (ValidationError
/// "lower.torch") and what timing throws.
ScheduleTiming timeScheduleLikeTorch(const RuntimeCosts& costs, const Schedule& schedule,
                                     std::string_view registryName, double inputShare = kFittedInputShare,
                                     const WorkControl* control = nullptr);

/// A registered schedule as torch would run it on the fitted machine.
struct SchedulePrediction {
    std::string schedule;           ///< registry name
    std::string runtime;            ///< torch's runtime for it: "runtime", "gpipe-loop", "1f1b-loop"
    RunSummary summary;             ///< the predicted median iteration
    Timeline timeline;              ///< a representative timing (representativeTiming), to draw
    std::vector<std::string> notes; ///< how the costs were mapped onto the schedule
    std::string refusal;            ///< why it cannot be predicted (then `summary` is empty)
};

/// Generates registered schedule `name` with `params` (its costs-dependent generators get the
/// fitted stage costs) and times it with timeScheduleLikeTorch. Throws what generation, the
/// lowering and the timing throw.
SchedulePrediction predictTorchSchedule(const RuntimeCosts& costs, const std::string& name,
                                        const ScheduleParams& params, double inputShare = kFittedInputShare);

/// predictTorchSchedule for each of `names`; a schedule that cannot be predicted (a bad parameter,
/// a schedule torch cannot run) gets its refusal message and the others are still predicted.
std::vector<SchedulePrediction> predictTorchSchedules(const RuntimeCosts& costs,
                                                      const std::vector<std::string>& names,
                                                      const ScheduleParams& params,
                                                      double inputShare = kFittedInputShare);

} // namespace stagecraft
