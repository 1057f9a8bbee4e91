// simulate(): core's analyze() for one schedule of a project (registered by name, or a Schedule
// read from a file or built in Python), exactly what `stagecraft-cli simulate` prints, with the
// timeline, idle causes and memory curves as numpy arrays for scripts that sweep thousands of
// configurations. A refused schedule raises the refusal as a ValidationError.
#include "analysis.h"
#include "bindings.h"
#include "error.h"
#include "eval/evaluation.h"
#include "eval/trace_export.h"
#include "op_columns.h"

#include <memory>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <stdexcept>

namespace stagecraft::python {

namespace {

struct Simulation {
    ScheduleOutcome outcome;
    const ScheduleReport& report() const { return outcome.prediction.report; }
    const Timeline& timeline() const { return outcome.prediction.timeline; }
};

Simulation analyzeOne(const AnalysisRequest& request) {
    AnalysisResult result = analyzeOrRaise(request);
    // analyze() gives every schedule of the request an outcome or a refusal.
    if (result.outcomes.empty())
        throw std::logic_error("simulate: analyze() returned neither an outcome nor a refusal");
    return Simulation{std::move(result.outcomes.front())};
}

/// The timeline's events of one lane as numpy columns.
py::dict eventColumns(const Timeline& timeline, Lane lane) {
    py::ssize_t n = 0;
    for (const TimelineEvent& e : timeline.events) n += e.lane == lane;
    py::array_t<std::int32_t> device(n), peer(n);
    py::array_t<double> start(n), end(n);
    OpColumns ops(n);
    py::ssize_t i = 0;
    for (const TimelineEvent& e : timeline.events) {
        if (e.lane != lane) continue;
        device.mutable_at(i) = e.device;
        peer.mutable_at(i) = e.peer;
        ops.set(i, e.op);
        start.mutable_at(i) = e.start;
        end.mutable_at(i) = e.end;
        ++i;
    }
    py::dict table(py::arg("device") = device);
    ops.addTo(table);
    table["start"] = start;
    table["end"] = end;
    if (lane == Lane::Comm) table["peer"] = peer;
    return table;
}

} // namespace

void bindSimulation(py::module_& m) {
    py::class_<Simulation, std::shared_ptr<Simulation>>(
        m, "Simulation",
        "One schedule's prediction: times in µs (units under costs.mode = unit), memory in bytes.")
        .def_property_readonly("name", [](const Simulation& s) { return s.outcome.name; })
        .def_property_readonly(
            "schedule", [](const Simulation& s) { return s.outcome.prediction.schedule; },
            "the simulated order, with its iteration tail (gradient syncs, optimizer steps)")
        .def_property_readonly(
            "unitless", [](const Simulation& s) { return s.report().unitless; },
            "times are units and memory M_a (costs.mode = unit)")
        .def_property_readonly("makespan", [](const Simulation& s) { return s.report().time.makespan; })
        .def_property_readonly(
            "iteration", [](const Simulation& s) { return s.report().iterationUs; },
            "one iteration: the makespan, or the longest span under post-validation")
        .def_property_readonly("bubble", [](const Simulation& s) { return s.report().time.bubbleRatio; })
        .def_property_readonly(
            "span_bubble", [](const Simulation& s) { return s.report().time.spanBubbleRatio; },
            "the zero-bubble papers' measure (longest per-device span)")
        .def_property_readonly("samples_per_s",
                               [](const Simulation& s) { return s.report().samplesPerSecond; })
        .def_property_readonly("tokens_per_s", [](const Simulation& s) { return s.report().tokensPerSecond; })
        .def_property_readonly(
            "mfu",
            [](const Simulation& s) -> py::object {
                return s.report().flopsMeaningful ? py::object(py::float_(s.report().mfu)) : py::none();
            },
            "model FLOPs utilisation, None where the costs do not describe this model on this GPU")
        .def_property_readonly("notes", [](const Simulation& s) { return s.report().notes; })
        .def_property_readonly(
            "fits", [](const Simulation& s) { return s.report().memory.fits; },
            "every device's peak memory within the limit")
        .def_property_readonly("peak_memory",
                               [](const Simulation& s) {
                                   std::vector<double> peaks;
                                   for (const DeviceMemory& d : s.report().memory.devices)
                                       peaks.push_back(d.peakBytes);
                                   return py::array_t<double>(py::ssize_t(peaks.size()), peaks.data());
                               })
        .def(
            "memory_curve",
            [](const Simulation& s, int device) {
                const auto& devices = s.report().memory.devices;
                if (device < 0 || std::size_t(device) >= devices.size())
                    throw py::index_error("device " + std::to_string(device) + " of " +
                                          std::to_string(devices.size()));
                const auto& curve = devices[std::size_t(device)].curve;
                py::array_t<double> t(py::ssize_t(curve.size())), bytes(py::ssize_t(curve.size()));
                auto tt = t.mutable_unchecked<1>();
                auto bb = bytes.mutable_unchecked<1>();
                for (std::size_t i = 0; i < curve.size(); ++i) {
                    tt(py::ssize_t(i)) = curve[i].first;
                    bb(py::ssize_t(i)) = curve[i].second;
                }
                return py::make_tuple(t, bytes);
            },
            py::arg("device"), "(times, bytes) after each change of the device's memory")
        .def(
            "ops", [](const Simulation& s) { return eventColumns(s.timeline(), Lane::Compute); },
            "Every op's device, kind (index into OP_KINDS), pipe, stage, mb, chunk, start and end.")
        .def(
            "transfers", [](const Simulation& s) { return eventColumns(s.timeline(), Lane::Comm); },
            "The communication lane: every transfer (the sending device, its peer and the producing op) "
            "and every gradient sync (kind 3, peer -1), with start and end.")
        .def(
            "devices",
            [](const Simulation& s) {
                py::list out;
                for (const DeviceMetrics& d : s.report().time.devices)
                    out.append(py::dict(
                        py::arg("busy") = d.busy, py::arg("idle") = d.idle,
                        py::arg("first_start") = d.firstStart, py::arg("last_end") = d.lastEnd,
                        py::arg("warmup") = d.bubbles.warmup, py::arg("cooldown") = d.bubbles.cooldown,
                        py::arg("communication") = d.bubbles.communication,
                        py::arg("waiting_on") = d.bubbles.waitingOn, py::arg("other") = d.bubbles.other));
                return out;
            },
            "Per device: busy and idle time, and the idle time by cause (warm-up, cool-down, "
            "transfers, waiting on each other device, other).")
        .def(
            "save_trace",
            [](const Simulation& s, const std::string& path) {
                const auto format = traceExportOf(path);
                if (!format)
                    throw ValidationError("cli.format", "path", "'" + path + "': use " + traceExtensions());
                writeTraceExport(s.outcome.prediction, path, *format, s.outcome.name);
            },
            py::arg("path"),
            "Writes the prediction as a trace: .json (Chrome/Perfetto JSON), .pftrace (Perfetto's protobuf "
            "format, for big schedules) or .et (Chakra execution traces of the lowered programs, PATH.0.et "
            "... one per rank).")
        .def("__repr__", [](const Simulation& s) {
            return "<stagecraft.Simulation '" + s.outcome.name +
                   "' makespan=" + std::to_string(s.report().time.makespan) +
                   " bubble=" + std::to_string(s.report().time.bubbleRatio) + ">";
        });

    m.def(
        "simulate",
        [](const Project& project, const std::string& name) {
            AnalysisRequest request;
            request.project = project;
            request.project.schedules = {name};
            return std::make_shared<Simulation>(analyzeOne(request));
        },
        py::arg("project"), py::arg("schedule"),
        "Predicts a registered schedule for the project (as `stagecraft-cli simulate -s NAME`).");
    m.def(
        "simulate",
        [](const Project& project, const Schedule& schedule) {
            AnalysisRequest request;
            request.project = project;
            request.project.schedules.clear();
            request.imported.push_back(ImportedSchedule{schedule.name, "", schedule, true});
            return std::make_shared<Simulation>(analyzeOne(request));
        },
        py::arg("project"), py::arg("schedule"),
        "Predicts a schedule object (read from a file or generated) with the project's model, cluster "
        "and costs, on the schedule's own pp and micro-batch count.");
}

} // namespace stagecraft::python
