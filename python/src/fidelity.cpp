// The runtime fit of docs/fidelity.md from Python: fit torch's runtime model to one measured
// torch.distributed.pipelining run (per-rank profiler traces), check it against other runs, and
// predict every registered schedule as torch would run it on the fitted machine ("calibrate
// once, choose a schedule"). The same core calls as `stagecraft-cli fidelity`.
#include "bindings.h"
#include "eval/runtime_fit.h"
#include "file_io.h"
#include "project/runtime_fit_file.h"

#include <cmath>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

namespace stagecraft::python {

namespace {

/// A fit as a script holds it: the record the fit file stores, and the residual of the fitted run
/// when it was fitted here (a fit read from a file keeps only the residual's two numbers).
struct Fit {
    RuntimeFitRecord record;
    std::optional<FidelityReport> residual;
};

py::object costOrNone(double us) {
    return us < 0 ? py::none() : py::object(py::float_(us));
}

py::dict pathDict(const ActionPathParts& p) {
    return py::dict(py::arg("compute") = p.compute, py::arg("transfers") = p.transfers,
                    py::arg("comm") = p.comm, py::arg("waits") = p.waits,
                    py::arg("bookkeeping") = p.bookkeeping, py::arg("gaps") = p.gaps,
                    py::arg("hops") = p.hops);
}

py::dict reportDict(const FidelityReport& r) {
    py::list ranks;
    for (std::size_t d = 0; d < r.measured.ranks.size() && d < r.predicted.ranks.size(); ++d) {
        const RankTime& m = r.measured.ranks[d];
        const RankTime& p = r.predicted.ranks[d];
        ranks.append(py::dict(
            py::arg("measured_compute") = m.compute, py::arg("predicted_compute") = p.compute,
            py::arg("measured_input_wait") = m.inputWait, py::arg("predicted_input_wait") = p.inputWait,
            py::arg("measured_comm") = m.comm, py::arg("predicted_comm") = p.comm,
            py::arg("measured_gaps") = m.gaps, py::arg("predicted_gaps") = p.gaps));
    }
    return py::dict(
        py::arg("measured_makespan") = r.measured.makespan,
        py::arg("predicted_makespan") = r.predicted.makespan, py::arg("makespan_error") = r.makespanError,
        py::arg("measured_makespan_p10_p90") = py::make_tuple(r.measured.makespanP10, r.measured.makespanP90),
        py::arg("predicted_makespan_p10_p90") =
            py::make_tuple(r.predicted.makespanP10, r.predicted.makespanP90),
        py::arg("measured_bubble") = r.measured.bubble, py::arg("predicted_bubble") = r.predicted.bubble,
        py::arg("bubble_error") = r.bubbleError, py::arg("op_mape") = r.opMape,
        py::arg("op_speed") = r.opSpeed,
        py::arg("makespan_error_at_run_speed") =
            r.atRunSpeed ? py::object(py::float_(r.makespanErrorAtRunSpeed)) : py::none(),
        py::arg("bubble_error_at_run_speed") =
            r.atRunSpeed ? py::object(py::float_(r.bubbleErrorAtRunSpeed)) : py::none(),
        py::arg("start_mae") = r.startMae, py::arg("matched_ops") = r.matchedOps,
        py::arg("critical_rank") = r.criticalRank, py::arg("critical_past_rank") = r.criticalPastRank,
        py::arg("measured_critical_path") = pathDict(r.measured.path),
        py::arg("predicted_critical_path") = pathDict(r.predicted.path), py::arg("ranks") = ranks);
}

std::vector<std::filesystem::path> filesOf(const std::vector<std::string>& specs) {
    std::vector<std::filesystem::path> files;
    for (const std::string& spec : specs)
        for (const auto& f : runFiles(spec)) files.push_back(f);
    return files;
}

std::string joined(const std::vector<std::string>& specs) {
    std::string out;
    for (const std::string& s : specs) out += (out.empty() ? "" : ",") + s;
    return out;
}

/// What a fit holds: its costs, notes and residual, read-only.
void bindFitProperties(py::class_<Fit>& fit) {
    fit.def_property_readonly("source", [](const Fit& f) { return f.record.source; })
        .def_property_readonly("model", [](const Fit& f) { return f.record.model; })
        .def_property_readonly("iterations", [](const Fit& f) { return f.record.iterations; })
        .def_property_readonly("ranks", [](const Fit& f) { return f.record.ranks; })
        .def_property_readonly("microbatches", [](const Fit& f) { return f.record.microbatches; })
        .def_property_readonly(
            "notes", [](const Fit& f) { return f.record.notes; },
            "what the run could not show and the rule used instead")
        .def_property_readonly(
            "stages",
            [](const Fit& f) {
                py::list out;
                for (const StageCompute& s : f.record.costs.stages)
                    out.append(py::dict(py::arg("f") = costOrNone(s.f), py::arg("b") = costOrNone(s.b),
                                        py::arg("i") = costOrNone(s.i), py::arg("w") = costOrNone(s.w)));
                return out;
            },
            "per stage: F, whole B, and the I and W halves of a split backward (None where not measured)")
        .def_property_readonly("actions",
                               [](const Fit& f) {
                                   const ActionCosts& a = f.record.costs.actions;
                                   return py::dict(
                                       py::arg("gap") = a.gap, py::arg("post_recv") = a.postRecv,
                                       py::arg("post_send") = a.postSend, py::arg("wait_send") = a.waitSend,
                                       py::arg("reduce_grad") = a.reduceGrad, py::arg("unshard") = a.unshard,
                                       py::arg("reshard") = a.reshard);
                               })
        .def_property_readonly("transfer", [](const Fit& f) { return f.record.costs.transfer.latency; })
        .def_property_readonly(
            "shared_processors", [](const Fit& f) { return f.record.costs.cores; },
            "processors the ranks shared (0: one each)")
        .def_property_readonly(
            "weight_factors",
            [](const Fit& f) {
                py::list out;
                for (const double w : f.record.costs.weightFactors)
                    out.append(costOrNone(std::isfinite(w) ? w : -1));
                return out;
            },
            "per rank, its W time over its I time in the fitted run (None where not measured; empty for a "
            "run "
            "that does not split its backward): a W another schedule runs on another rank takes that rank's "
            "speed")
        .def_property_readonly(
            "residual",
            [](const Fit& f) -> py::dict {
                if (f.residual) return reportDict(*f.residual);
                py::dict out(py::arg("makespan_error") = f.record.residualMakespanError,
                             py::arg("bubble_error") = f.record.residualBubbleError);
                // A fit file keeps the last rank's parts of the error (absent in older files).
                if (const ResidualParts& p = f.record.residualParts; p.rank >= 0) {
                    out["critical_rank"] = p.rank;
                    out["critical_past_rank"] = p.pastRank;
                }
                return out;
            },
            "the fitted run predicted from the fit, against its measurement");
}

/// What a fit answers: another run checked, schedules predicted, the fit written.
void bindFitMethods(py::class_<Fit>& fit) {
    fit.def(
           "check",
           [](const Fit& f, const std::vector<std::string>& run) {
               const std::vector<RankTrace> ranks = readTorchRun(filesOf(run));
               FidelityReport report;
               {
                   py::gil_scoped_release release;
                   report = predictRun(f.record.costs, ranks, joined(run));
               }
               return reportDict(report);
           },
           py::arg("run"),
           "Predicts another measured run (its per-rank traces) and compares: makespan, bubble, per-rank "
           "times, op errors; op_speed (the run's compute time over the prediction's) and the errors at "
           "that speed (a diagnosis: what the schedule's timing leaves); critical_rank, the rank that "
           "ends last, and critical_past_rank, the part of the makespan error beyond that rank's own "
           "times (µs).")
        .def(
            "predict",
            [](const Fit& f, const std::vector<std::string>& names, int pp, int microbatches, int chunks,
               double inputShare) {
                std::vector<SchedulePrediction> predictions;
                {
                    py::gil_scoped_release release;
                    predictions = predictTorchSchedules(f.record.costs, names,
                                                        ScheduleParams{pp, microbatches, chunks}, inputShare);
                }
                py::list out;
                for (const SchedulePrediction& p : predictions)
                    out.append(py::dict(
                        py::arg("schedule") = p.schedule, py::arg("runtime") = p.runtime,
                        py::arg("makespan") =
                            p.refusal.empty() ? py::object(py::float_(p.summary.makespan)) : py::none(),
                        py::arg("bubble") =
                            p.refusal.empty() ? py::object(py::float_(p.summary.bubble)) : py::none(),
                        py::arg("notes") = p.notes, py::arg("refusal") = p.refusal));
                return out;
            },
            py::arg("schedules"), py::arg("pp"), py::arg("microbatches"), py::arg("chunks") = 2,
            py::arg("input_share") = 0.5,
            "Registered schedules as torch would run them on the fitted machine: makespan (µs) and bubble, "
            "or the reason torch cannot run one.")
        .def("to_json", [](const Fit& f) { return runtimeFitToJson(f.record); })
        .def(
            "save",
            [](const Fit& f, const std::filesystem::path& path) {
                writeFileAtomically(path, runtimeFitToJson(f.record));
            },
            py::arg("path"), "Writes the fit file (*.fit.json) atomically.");
}

} // namespace

void bindFidelity(py::module_& m) {
    py::class_<Fit> fit(
        m, "RuntimeFit",
        "torch's runtime model (torch-gloo) fitted to one measured run: per-stage compute, the "
        "framework's own time between actions, posting and transfer costs, their spread, and "
        "how many processors the ranks shared. Times in µs.");
    bindFitProperties(fit);
    bindFitMethods(fit);
    m.def(
        "fit_torch_run",
        [](const std::vector<std::string>& run, std::optional<double> processors) {
            const std::vector<RankTrace> ranks = readTorchRun(filesOf(run));
            Fit out;
            {
                py::gil_scoped_release release;
                const RuntimeFit fit =
                    fitRuntime(ranks, joined(run), processors ? *processors : kFindProcessors);
                out.record = recordOf(fit, joined(run));
                out.residual = fit.residual;
            }
            return out;
        },
        py::arg("run"), py::arg("processors") = py::none(),
        "Fits torch's runtime model to one measured run: its per-rank torch profiler traces (paths, or "
        "the common prefix RUN of RUN_rank0.json, RUN_rank1.json ..., or of repeated recordings "
        "RUN_rep0_rank0.json ..., RUN_rep1_rank0.json ..., joined into one run). processors: the "
        "processors the ranks shared where known (0: one each), as `stagecraft-cli fidelity "
        "--processors`; None finds the count whose replay comes closest to the run.");
    m.def(
        "load_fit",
        [](const std::filesystem::path& path) {
            return Fit{parseRuntimeFitJson(readTextFile(path), path.string()), std::nullopt};
        },
        py::arg("path"), "Reads a fit file written by RuntimeFit.save or `stagecraft-cli fidelity -o`.");
}

} // namespace stagecraft::python
