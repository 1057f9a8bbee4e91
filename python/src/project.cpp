// A Stagecraft project (model, cluster, parallelism, memory, costs) from its file or the built-in
// default, read and changed through the one field table the project file, `--set` and the app's
// forms use: a field is set from the same text `--set` takes and read back as that text, or as a
// Python number, string or list where its kind is one.
#include "bindings.h"
#include "eval/evaluation.h"
#include "project/project_fields.h"
#include "project/project_json.h"
#include "project/project_validate.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

namespace stagecraft::python {

namespace {

const ProjectField& fieldNamed(const std::string& path) {
    if (const ProjectField* field = findProjectField(path)) return *field;
    // The same refusal `--set` gives for an unknown field, with the valid names.
    Project probe;
    setProjectField(probe, path, "");
    throw ValidationError("project.field", path, path + ": not a project field"); // not reached
}

/// A field's value as Python sees it: numbers and strings as themselves, lists of names and of
/// numbers as lists, cost lists as the text `--set` takes.
py::object fieldValue(const Project& project, const ProjectField& field) {
    const FieldValue value = field.get(project);
    if (const int* i = std::get_if<int>(&value)) return py::int_(*i);
    if (const double* d = std::get_if<double>(&value)) return py::float_(*d);
    if (const std::string* s = std::get_if<std::string>(&value)) return py::str(*s);
    if (const auto* names = std::get_if<std::vector<std::string>>(&value)) return py::cast(*names);
    if (const auto* numbers = std::get_if<std::vector<double>>(&value)) return py::cast(*numbers);
    return py::str(formatFieldValue(value));
}

/// The text `--set` takes for a Python value: numbers and strings as written, lists joined by ','.
std::string fieldText(const py::handle& value) {
    if (py::isinstance<py::bool_>(value))
        throw py::type_error("a project field takes a number, a string or a list");
    if (py::isinstance<py::str>(value)) return value.cast<std::string>();
    if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value))
        return py::str(value).cast<std::string>();
    if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
        std::string text;
        for (const py::handle& item : value) text += (text.empty() ? "" : ",") + fieldText(item);
        return text;
    }
    throw py::type_error("a project field takes a number, a string or a list, not " +
                         py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>());
}

} // namespace

void bindProject(py::module_& m) {
    py::class_<Project>(m, "Project",
                        "A project: model, cluster, parallelism, memory budget and costs, as in a "
                        "*.stagecraft.json file. Fields are named by their dotted path "
                        "('parallel.pp', 'costs.mode'), as `stagecraft-cli --set` names them.")
        .def(py::init(&defaultProject), "The built-in default project (a 1.3B GPT on 8 A100s).")
        .def_static(
            "load", [](const std::filesystem::path& path) { return readProject(path); }, py::arg("path"),
            "Reads a *.stagecraft.json file; every field is checked (ParseError, ValidationError).")
        .def_static(
            "from_json",
            [](const std::string& text, const std::string& source) { return parseProject(text, source); },
            py::arg("text"), py::arg("source") = "<string>")
        .def("to_json", &projectToJson)
        .def(
            "save", [](const Project& p, const std::filesystem::path& path) { writeProject(p, path); },
            py::arg("path"), "Writes the project file atomically (a temporary file, then a rename).")
        .def_readwrite("name", &Project::name)
        .def_readwrite("schedules", &Project::schedules, "registry names evaluated by default")
        .def_property_readonly(
            "runtime_fit",
            [](const Project& p) {
                return p.runtimeFit ? py::object(py::str(describeRuntimeFit(*p.runtimeFit)))
                                    : py::object(py::none());
            },
            "What the runtime fit a calibration from a torch run keeps rests on (it then times every "
            "schedule), "
            "or None.")
        .def(
            "without_runtime_fit",
            [](const Project& p) {
                Project copy = p;
                copy.runtimeFit.reset();
                return copy;
            },
            "A copy whose schedules are timed by the list scheduler with its costs again.")
        .def(
            "get", [](const Project& p, const std::string& path) { return fieldValue(p, fieldNamed(path)); },
            py::arg("field"), "The value of a field ('model.layers').")
        .def(
            "set",
            [](Project& p, const std::string& path, const py::handle& value) {
                setProjectField(p, path, fieldText(value));
            },
            py::arg("field"), py::arg("value"),
            "Sets a field from a number, a string (as `--set` takes it) or a list; raises ValidationError "
            "naming the field, the value and its range.")
        .def(
            "with_overrides",
            [](const Project& p, const py::dict& overrides) {
                Project copy = p;
                for (const auto& [key, value] : overrides)
                    setProjectField(copy, key.cast<std::string>(), fieldText(value));
                return copy;
            },
            py::arg("overrides"), "A copy with {'parallel.pp': 8, ...} applied in order.")
        .def(
            "check", [](const Project& p) { validateProject(p); },
            "Raises ValidationError for the first rule between fields the project breaks.")
        .def(
            "order",
            [](const Project& p, const std::string& name) {
                py::gil_scoped_release release;
                return orderFromProject(p, name);
            },
            py::arg("name"),
            "The order of a registered schedule for this project's parameters and, for cost-aware "
            "generators (zb-auto, zb-v), its costs and memory limit.")
        .def("__eq__", [](const Project& a, const Project& b) { return a == b; })
        .def("__repr__", [](const Project& p) {
            return "<stagecraft.Project '" + p.name + "' pp=" + std::to_string(p.parallel.pp) +
                   " m=" + std::to_string(p.parallel.microbatches) + ">";
        });

    m.def(
        "project_fields",
        [] {
            py::list out;
            for (const ProjectField& f : projectFields())
                out.append(py::dict(
                    py::arg("field") = std::string(f.path),
                    py::arg("kind") = std::string(fieldKindName(f.kind)),
                    py::arg("unit") = std::string(f.unit), py::arg("range") = describeFieldRange(f),
                    py::arg("default") = std::string(f.defaultText), py::arg("help") = std::string(f.help)));
            return out;
        },
        "Every project field: its dotted path, kind, unit, range, default and help.");
}

} // namespace stagecraft::python
