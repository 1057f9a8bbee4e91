#include "gui/models/schedule_edit_session.h"

#include "edit/editor_costs.h"
#include "project/project.h"

#include <algorithm>

namespace stagecraft::gui {
namespace {

/// The editor on `name`'s order, with the project's costs in the split convention (B and W
/// apart, so a split is timed right).
ScheduleEditor editorOf(const Project& project, const std::string& name) {
    Schedule schedule = orderFromProject(project, name);
    const OpCosts costs = editorCostSetup(project, schedule).costs;
    return ScheduleEditor(std::move(schedule), costs);
}

} // namespace

ScheduleEditSession::ScheduleEditSession(const Project& project, const std::string& baseName)
    : m_base{baseName, scheduleParams(project), {}}, m_editor(editorOf(project, baseName)) {}

std::vector<Edit> ScheduleEditSession::applyInTurn(const std::vector<Edit>& edits) {
    std::vector<Edit> inverse;
    try {
        for (const Edit& edit : edits) {
            std::vector<Edit> back = m_editor.apply(edit).inverse;
            inverse.insert(inverse.begin(), back.begin(), back.end()); // the last edit's first
        }
    } catch (...) { // an edit that cannot apply changed nothing; those before it are taken back
        m_editor.applyAll(inverse);
        throw;
    }
    return inverse;
}

EditTrial ScheduleEditSession::trial(const std::vector<Edit>& edits, bool withOrder) {
    const std::vector<Edit> inverse = applyInTurn(edits);
    EditTrial trial;
    trial.broken = m_editor.broken();
    if (withOrder && trial.broken.kind == BreakKind::None) trial.edited = imported();
    // The waits name positions of the order with the edits in it: read their ops before undoing.
    const auto& order = m_editor.schedule().order;
    for (const BlockedDevice& wait : trial.broken.waits)
        for (const OpRef& ref : {wait.at, wait.waitingFor})
            if (ref.valid()) trial.involved.push_back(order[std::size_t(ref.device)][std::size_t(ref.index)]);
    m_editor.applyAll(inverse);
    return trial;
}

EditStep ScheduleEditSession::applyStep(const std::vector<Edit>& edits) {
    EditStep step;
    step.edits = edits;
    step.inverse = applyInTurn(edits);
    step.broken = m_editor.broken();
    if (step.broken.kind != BreakKind::None) {
        m_editor.applyAll(step.inverse);
        step.inverse.clear();
        return step;
    }
    for (const Edit& edit : edits) m_texts.push_back(formatEdit(edit, m_editor.schedule()));
    return step;
}

void ScheduleEditSession::revert(const std::vector<Edit>& inverse, std::size_t edits) {
    m_editor.applyAll(inverse);
    m_texts.resize(m_texts.size() - std::min(edits, m_texts.size()));
}

Schedule ScheduleEditSession::editedSchedule() const {
    Schedule schedule = m_editor.schedule();
    schedule.name = m_base.schedule + "-edited";
    return schedule;
}

ImportedSchedule ScheduleEditSession::imported() const {
    ImportedSchedule imported;
    imported.name = editedName();
    imported.schedule = editedSchedule();
    return imported;
}

std::string ScheduleEditSession::editListJson() const {
    return editListToJson(m_base, m_texts);
}

} // namespace stagecraft::gui
