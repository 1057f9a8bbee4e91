#pragma once
// The `stagecraft` Python module: a thin shell over core/, one file per part of its API. Every
// call goes to the same core functions the CLI and the app call; nothing here re-derives what
// core knows.

#include <pybind11/pybind11.h>

namespace stagecraft::python {

namespace py = pybind11;

/// stagecraft.Error / ParseError / ValidationError, raised for every stagecraft::Error with its id.
void bindErrors(py::module_& m);
/// Schedule, the registry (schedules(), generate()), validation and the schedule file formats.
void bindSchedules(py::module_& m);
/// Project: the project file, its fields and `--set`-style overrides.
void bindProject(py::module_& m);
/// simulate(): the prediction with its op times, idle time and memory curves as numpy arrays.
void bindSimulation(py::module_& m);
/// lower(): per-rank programs, their replay check and torch's comms CSV.
void bindLowering(py::module_& m);
/// overlay() and calibrate(): a measured trace against, and fitted into, a project's prediction.
void bindMeasured(py::module_& m);
/// fit_torch_run(): the runtime fit to a measured torch run, its checks and predictions.
void bindFidelity(py::module_& m);
/// search(): the configuration search, its results as numpy columns, best configs and fronts.
void bindSearch(py::module_& m);
/// Editor: hand edits of a schedule's order, repair, fill bubbles and compact.
void bindEditing(py::module_& m);

} // namespace stagecraft::python
