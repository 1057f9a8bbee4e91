// Hand edits from Python: core's ScheduleEditor on a schedule, with edits in their one text form
// ("move 1W3 after 1F5", "split all", "pipe 5 to 1", "add 2SYNC after 2W7"), what each changed or
// broke, core's repair (with whether its count is the fewest), fill bubbles and compact. A search
// or a notebook drives the same editor the window drags.
#include "bindings.h"
#include "edit/editor_costs.h"
#include "edit/fill_bubbles.h"
#include "edit/repair.h"
#include "edit/schedule_editor.h"

#include <pybind11/stl.h>

namespace stagecraft::python {

namespace {

std::vector<std::string> texts(const std::vector<Edit>& edits, const Schedule& schedule) {
    std::vector<std::string> out;
    out.reserve(edits.size());
    for (const Edit& e : edits) out.push_back(formatEdit(e, schedule));
    return out;
}

/// What broke as a dict, None when the order runs.
py::object brokenOf(const EditBreak& broken) {
    if (broken.kind == BreakKind::None) return py::none();
    py::list waits;
    for (const BlockedDevice& w : broken.waits)
        waits.append(py::dict(py::arg("device") = w.device, py::arg("position") = w.at.index,
                              py::arg("reason") = w.reason));
    return py::dict(py::arg("kind") = broken.kind == BreakKind::Dependency ? "dependency" : "deadlock",
                    py::arg("message") = broken.message, py::arg("waits") = waits);
}

py::dict outcomeOf(const EditOutcome& out, const Schedule& schedule) {
    return py::dict(py::arg("inverse") = texts(out.inverse, schedule), py::arg("retimed") = out.retimed,
                    py::arg("broken") = brokenOf(out.broken));
}

/// One edit applied, without the GIL (a pipe edit or a switch of form is linear in the order).
EditOutcome applyText(ScheduleEditor& editor, const std::string& text) {
    const Edit edit = parseEdit(text, "edit", editor.schedule().sequenceSlices);
    py::gil_scoped_release release;
    return editor.apply(edit);
}

/// A helper (fill bubbles, compact) run without the GIL; its moves in text form.
std::vector<std::string> helperMoves(ScheduleEditor& editor, std::vector<Edit> (*helper)(ScheduleEditor&)) {
    std::vector<Edit> moves;
    {
        py::gil_scoped_release release;
        moves = helper(editor);
    }
    return texts(moves, editor.schedule());
}

} // namespace

void bindEditing(py::module_& m) {
    py::class_<ScheduleEditor>(m, "Editor",
                               "A schedule being edited by hand (docs/editing.md): core's ScheduleEditor, "
                               "re-timing what each edit touches.")
        .def(py::init([](const Schedule& schedule, const Project* project) {
                 const CostSetup setup =
                     project ? editorCostSetup(*project, schedule) : unitEditorCostSetup(schedule);
                 return ScheduleEditor(schedule, setup.costs);
             }),
             py::arg("schedule"), py::arg("project") = nullptr,
             "Edit `schedule`, timed with `project`'s costs, or unit costs (F = B = W = 1) when None. "
             "Raises ValidationError 'edit.schedule' for a schedule hand edits cannot hold.")
        .def(
            "apply",
            [](ScheduleEditor& editor, const std::string& text) {
                return outcomeOf(applyText(editor, text), editor.schedule());
            },
            py::arg("edit"),
            "Applies one edit in its text form; returns {'inverse': [edits that undo it], 'retimed': ops "
            "re-timed, 'broken': None or {'kind': 'dependency'|'deadlock', 'message', 'waits'}}. An edit "
            "that cannot apply raises (ParseError 'edit.syntax', ValidationError 'edit.*') and changes "
            "nothing.")
        .def(
            "apply_all",
            [](ScheduleEditor& editor, const std::vector<std::string>& edits) {
                py::list out;
                for (const std::string& text : edits)
                    out.append(outcomeOf(applyText(editor, text), editor.schedule()));
                return out;
            },
            py::arg("edits"), "apply() for each edit in turn; the outcome of each.")
        .def(
            "repair",
            [](ScheduleEditor& editor) {
                RepairSearch search;
                std::vector<RepairMove> moves;
                {
                    py::gil_scoped_release release;
                    moves = repair(editor, &search);
                }
                py::list listed;
                for (const RepairMove& move : moves)
                    listed.append(py::make_tuple(formatEdit(move.edit, editor.schedule()), move.reason));
                return py::dict(py::arg("moves") = listed, py::arg("fewest") = search.fewest,
                                py::arg("greedy_moves") = search.greedyMoves,
                                py::arg("summary") = describeRepair(moves.size(), search));
            },
            "Makes a broken order run (docs/editing.md, 'Repair'): {'moves': [(edit, reason)], 'fewest': "
            "whether no fewer moves would do, 'greedy_moves', 'summary'}.")
        .def(
            "fill_bubbles", [](ScheduleEditor& editor) { return helperMoves(editor, &fillBubbles); },
            "Slides W ops into idle gaps of their device; the moves made.")
        .def(
            "compact", [](ScheduleEditor& editor) { return helperMoves(editor, &compact); },
            "Pulls compute ops into the earliest idle gap where they fit; the moves made.")
        .def_property_readonly(
            "schedule", [](const ScheduleEditor& e) { return Schedule(e.schedule()); },
            "The order as it is now, as a Schedule of its own (later edits do not change it).")
        .def_property_readonly("runs", &ScheduleEditor::runs, "False while the order is broken")
        .def_property_readonly("broken", [](const ScheduleEditor& e) { return brokenOf(e.broken()); })
        .def_property_readonly("makespan", &ScheduleEditor::makespan, "0 while broken")
        .def_property_readonly("bubble", &ScheduleEditor::bubbleRatio, "idle share of all device time")
        .def("__repr__", [](const ScheduleEditor& e) {
            return "<stagecraft.Editor '" + e.schedule().name + "' " +
                   (e.runs() ? "makespan=" + std::to_string(e.makespan()) : std::string("broken")) + ">";
        });
}

} // namespace stagecraft::python
