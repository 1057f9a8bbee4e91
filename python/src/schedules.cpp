// Schedules as data: the registry every front end uses, generation, validation and the two file
// formats (torch's CSV, Stagecraft's schedule JSON). A Schedule is core's value; its ops come out
// as numpy arrays, one entry per op in each device's order.
#include "bindings.h"
#include "generators/registry.h"
#include "io/schedule_file.h"
#include "io/schedule_json.h"
#include "io/torch_csv.h"
#include "ir/op_name.h"
#include "op_columns.h"
#include "validate/validator.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

namespace stagecraft::python {

namespace {

py::dict generatorInfo(const GeneratorInfo& info) {
    py::list params;
    for (const ParamSpec& p : info.params)
        params.append(py::dict(py::arg("name") = std::string(p.name), py::arg("field") = std::string(p.field),
                               py::arg("min") = p.min, py::arg("max") = p.max,
                               py::arg("default") = p.defaultValue, py::arg("help") = std::string(p.help)));
    return py::dict(py::arg("name") = std::string(info.name), py::arg("title") = std::string(info.title),
                    py::arg("summary") = std::string(info.summary),
                    py::arg("constraints") = std::string(info.constraints), py::arg("params") = params,
                    py::arg("split_backward") = info.splitBackward, py::arg("pipes") = info.pipes,
                    py::arg("uses_costs") = info.usesCosts);
}

/// Every op of `s` in device order as columns: device, position in the device's order, kind
/// (0 F, 1 B, 2 W, 3 GradSync, 4 Optimizer), pipe, stage, micro-batch (-1 for syncs), chunk.
py::dict opColumns(const Schedule& s) {
    const py::ssize_t n = py::ssize_t(s.opCount());
    py::array_t<std::int32_t> device(n), position(n);
    OpColumns ops(n);
    py::ssize_t i = 0;
    for (int r = 0; r < s.devices; ++r)
        for (std::size_t j = 0; j < s.order[std::size_t(r)].size(); ++j, ++i) {
            device.mutable_at(i) = r;
            position.mutable_at(i) = std::int32_t(j);
            ops.set(i, s.order[std::size_t(r)][j]);
        }
    py::dict table(py::arg("device") = device, py::arg("position") = position);
    ops.addTo(table);
    return table;
}

} // namespace

void bindSchedules(py::module_& m) {
    m.attr("OP_KINDS") = py::make_tuple("F", "B", "W", "GradSync", "Optimizer", "R");

    py::class_<Schedule>(m, "Schedule",
                         "A pipeline schedule: its shape, placement and every device's op order.")
        .def_readonly("name", &Schedule::name)
        .def_readonly("devices", &Schedule::devices, "pipeline devices p")
        .def_readonly("pipes", &Schedule::pipes, "1, or 2 for bidirectional schedules")
        .def_readonly("stages_per_pipe", &Schedule::stagesPerPipe)
        .def_readonly("microbatches", &Schedule::microbatches)
        .def_readonly("chunks_per_device", &Schedule::chunksPerDevice)
        .def_readonly("split_backward", &Schedule::splitBackward, "B and W are separate ops (zero bubble)")
        .def_readonly("notes", &Schedule::notes, "what the generator wants users to know about this order")
        .def_property_readonly("op_count", &Schedule::opCount)
        .def_property_readonly(
            "placement",
            [](const Schedule& s) {
                py::list pipes;
                for (const auto& stages : s.placement) {
                    py::list row;
                    for (const StageSlot& slot : stages) row.append(py::make_tuple(slot.device, slot.chunk));
                    pipes.append(row);
                }
                return pipes;
            },
            "[pipe][stage] -> (device, chunk)")
        .def("ops", &opColumns,
             "Every op in device order as numpy columns: device, position, kind (index into OP_KINDS), "
             "pipe, stage, mb (-1 for syncs), chunk.")
        .def(
            "op_names",
            [](const Schedule& s) {
                std::vector<std::string> names;
                names.reserve(s.opCount());
                for (const auto& order : s.order)
                    for (const Op& op : order) names.push_back(opName(op, s.splitBackward, s.sequenceSlices));
                return names;
            },
            "Every op's name in the order of ops(), as torch writes actions ('2F0', '2I0', '2W0'; "
            "'2SYNC', '2OPT'; 'p1:' on a second pipe), the name every Stagecraft front end shows.")
        .def("to_torch_csv", &scheduleToTorchCsv, "torch.distributed.pipelining's compute-only CSV")
        .def("to_json", &scheduleToJson, "Stagecraft's schedule JSON")
        .def("__eq__", [](const Schedule& a, const Schedule& b) { return a == b; })
        .def("__repr__", [](const Schedule& s) {
            return "<stagecraft.Schedule '" + s.name + "' p=" + std::to_string(s.devices) +
                   " m=" + std::to_string(s.microbatches) +
                   " stages/pipe=" + std::to_string(s.stagesPerPipe) + " ops=" + std::to_string(s.opCount()) +
                   ">";
        });

    m.def(
        "schedules",
        [] {
            py::list out;
            for (const GeneratorInfo& info : generators()) out.append(generatorInfo(info));
            return out;
        },
        "Every registered schedule with its parameters and rules, in the order the app lists them.");
    m.def(
        "generate",
        [](const std::string& name, int pp, int microbatches, int chunks, int slices) {
            const ScheduleParams params{pp, microbatches, chunks, slices};
            py::gil_scoped_release release;
            return generateSchedule(name, params);
        },
        py::arg("name"), py::arg("pp"), py::arg("microbatches"), py::arg("chunks") = 2, py::arg("slices") = 2,
        "The order of a registered schedule for its parameters (unit costs for cost-aware ones; "
        "Project.order uses the project's costs); `slices` is read by the schedules of sequence "
        "slices (seq1f1b, seq1f1b-i, terapipe). Raises ValidationError naming a broken rule.");
    m.def(
        "validate",
        [](const Schedule& s) {
            py::gil_scoped_release release;
            validate(s);
        },
        py::arg("schedule"),
        "Raises ValidationError unless every op appears once, each device's order respects the data "
        "dependencies and the schedule cannot deadlock (the error names the ring of waiting ops).");
    m.def(
        "parse_torch_csv",
        [](const std::string& text, const std::string& source) { return parseTorchCsv(text, source); },
        py::arg("text"), py::arg("source") = "<string>",
        "A schedule from torch's CSV text (compute-only format).");
    m.def(
        "parse_schedule_json",
        [](const std::string& text, const std::string& source) { return parseScheduleJson(text, source); },
        py::arg("text"), py::arg("source") = "<string>", "A schedule from Stagecraft's schedule JSON text.");
    m.def(
        "read_schedule", [](const std::filesystem::path& path) { return readScheduleFile(path); },
        py::arg("path"), "A schedule from a .csv (torch) or .json (Stagecraft) file.");
    m.def(
        "write_schedule",
        [](const Schedule& s, const std::filesystem::path& path) { writeScheduleFile(s, path); },
        py::arg("schedule"), py::arg("path"),
        "Writes a schedule as .csv (torch) or .json (Stagecraft), atomically.");
}

} // namespace stagecraft::python
