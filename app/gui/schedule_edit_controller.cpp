#include "gui/schedule_edit_controller.h"

#include "edit/block_move.h"
#include "error.h"
#include "file_io.h"
#include "generators/registry.h"
#include "gui/gantt_view.h"
#include "gui/models/project_document.h"
#include "gui/models/schedule_edit_preview.h"
#include "gui/models/schedule_edit_session.h"
#include "gui/panels.h"
#include "gui/schedule_edit_drag.h"
#include "io/edit_list.h"
#include "io/schedule_file.h"
#include "project/project.h"

#include <QFileInfo>
#include <QUndoCommand>
#include <utility>

namespace stagecraft::gui {

/// One kept step (a move, a split, a helper's moves): redo applies its edits again, undo applies
/// core's inverse of them. A step of a design that was since replaced changes that design only
/// (it is no longer shown).
class ScheduleStepCommand : public QUndoCommand {
  public:
    ScheduleStepCommand(ScheduleEditController* controller, std::shared_ptr<ScheduleEditSession> session,
                        std::vector<Edit> edits, std::vector<Edit> inverse, const QString& label)
        : m_controller(controller), m_session(std::move(session)), m_edits(std::move(edits)),
          m_inverse(std::move(inverse)) {
        setText(label);
    }
    void undo() override {
        m_session->revert(m_inverse, m_edits.size());
        notify();
    }
    void redo() override {
        if (m_applied) { // pushed after the step was applied and kept
            m_applied = false;
            return;
        }
        m_inverse = m_session->applyStep(m_edits).inverse;
        notify();
    }

  private:
    void notify() {
        if (m_controller->m_session == m_session) m_controller->orderChanged(m_edits.front().op);
    }

    ScheduleEditController* m_controller;
    std::shared_ptr<ScheduleEditSession> m_session;
    std::vector<Edit> m_edits;
    std::vector<Edit> m_inverse;
    bool m_applied = true;
};

ScheduleEditController::ScheduleEditController(ProjectDocument* document, GanttView* view,
                                               MessageBar* messages, QWidget* window)
    : QObject(window), m_document(document), m_view(view), m_messages(messages), m_window(window),
      m_drag(std::make_unique<ScheduleEditDrag>(this, view)) {}

ScheduleEditController::~ScheduleEditController() {
    // The window may have deleted its chart first (children go in the order they were made).
    if (m_view) m_view->setDragEditor(nullptr);
}

QString ScheduleEditController::begin(const QString& scheduleName) {
    try {
        m_session = std::make_shared<ScheduleEditSession>(m_document->project(), scheduleName.toStdString());
    } catch (const Error& e) {
        return tell(
            tr("%1 cannot be edited by hand: %2").arg(scheduleName, QString::fromStdString(e.what())));
    }
    m_block.clear();
    m_view->setDragEditor(m_drag.get());
    emit editingStarted(QString::fromStdString(m_session->editedName()), scheduleName);
    m_messages->showMessage(tr("Designing %1 by hand: drag an op of \"%2\" along its row, or select it and "
                               "press Alt+Left / Alt+Right.")
                                .arg(scheduleName, QString::fromStdString(m_session->editedName()))
                                .toHtmlEscaped(),
                            MessageBar::Kind::Info);
    emit changed();
    return {};
}

std::optional<ImportedSchedule> ScheduleEditController::imported() const {
    if (!m_session) return std::nullopt;
    return m_session->imported();
}

int ScheduleEditController::editedPanel(const AnalysisPtr& result) const {
    if (!m_session || !result) return -1;
    const std::string name = m_session->editedName();
    for (std::size_t i = 0; i < result->outcomes.size(); ++i)
        if (result->outcomes[i].imported && result->outcomes[i].name == name) return int(i);
    return -1;
}

int ScheduleEditController::originalPanel(const AnalysisPtr& result) const {
    if (!m_session || !result) return -1;
    for (std::size_t i = 0; i < result->outcomes.size(); ++i)
        if (!result->outcomes[i].imported && result->outcomes[i].name == m_session->baseName()) return int(i);
    return -1;
}

QString ScheduleEditController::move(const Edit& edit) {
    if (!m_session) return tr("Not designing a schedule by hand (Edit > Design by Hand).");
    return step({edit}, QString::fromStdString(formatEdit(edit, m_session->editor().schedule())));
}

QString ScheduleEditController::step(const std::vector<Edit>& edits, const QString& label) {
    if (!m_session) return tr("Not designing a schedule by hand (Edit > Design by Hand).");
    if (edits.empty()) return {};
    QString why;
    bool broke = false; // applied and broke the order (not: could not apply at all)
    try {
        EditStep kept = m_session->applyStep(edits);
        if (kept.broken.kind == BreakKind::None) {
            m_refused.reset();
            m_document->undoStack()->push(new ScheduleStepCommand(this, m_session, std::move(kept.edits),
                                                                  std::move(kept.inverse), label));
            orderChanged(edits.front().op);
            return {};
        }
        why = QString::fromStdString(kept.broken.message);
        broke = true;
    } catch (const Error& e) {
        why = QString::fromStdString(e.what());
    }
    // A single move that breaks the order can be made anyway and repaired (Repair Refused Move).
    m_refused.reset();
    if (broke && edits.size() == 1 &&
        (edits.front().kind == EditKind::Move || edits.front().kind == EditKind::Shift ||
         edits.front().kind == EditKind::Swap))
        m_refused = edits.front();
    refuse(label, why);
    return tr("Not moved (%1): %2").arg(label, why);
}

QString ScheduleEditController::tell(const QString& text, bool hint) {
    m_messages->showMessage(text.toHtmlEscaped(), hint ? MessageBar::Kind::Info : MessageBar::Kind::Error);
    return text;
}

void ScheduleEditController::refuse(const QString& what, const QString& why) {
    m_messages->showMessage(tr("Not moved (%1): %2").arg(what, why).toHtmlEscaped());
    if (m_refused) m_messages->setAction(tr("Move and Repair"), [this] { repairRefused(); });
}

QString ScheduleEditController::shiftSelected(int by) {
    if (m_session && m_block.size() > 1) {
        try {
            return moveBlock(blockShift(m_session->editor(), m_block, by));
        } catch (const Error& e) { // an op of the block is gone (a split or merge changed its name)
            m_block.clear();
            return tell(QString::fromStdString(e.message()));
        }
    }
    const std::optional<Op> selected = selectedOp();
    if (!selected) return tr("Select an op of the schedule being designed by hand first.");
    Edit edit;
    edit.kind = EditKind::Shift;
    edit.op = *selected;
    edit.index = by;
    return move(edit);
}

std::optional<Op> ScheduleEditController::selectedOp() {
    const auto selected = m_view->selection();
    const AnalysisPtr& result = m_view->result();
    // A measured box (a trace drawn in rows of its own) is no op of the design.
    if (!m_session || !selected || selected->first != editedPanel(result) || selected->second < 0 ||
        std::size_t(selected->second) >=
            result->outcomes[std::size_t(selected->first)].prediction.timeline.events.size()) {
        m_messages->showMessage(
            tr("Select an op of the schedule being designed by hand first (Edit > Design by Hand).")
                .toHtmlEscaped(),
            MessageBar::Kind::Info);
        return std::nullopt;
    }
    return result->outcomes[std::size_t(selected->first)]
        .prediction.timeline.events[std::size_t(selected->second)]
        .op;
}

void ScheduleEditController::orderChanged(const Op& moved) {
    m_follow = moved;
    emit changed();
}

void ScheduleEditController::resultShown(const AnalysisPtr& result) {
    m_previewBase.reset(); // a new result replaced any preview
    const int panel = editedPanel(result);
    const int original = originalPanel(result);
    m_view->setGhost(m_showOriginal && panel >= 0 && original >= 0 ? std::optional(std::pair(original, panel))
                                                                   : std::nullopt);
    if (!m_follow || panel < 0) return;
    const Op op = *m_follow;
    m_follow.reset();
    const int event = computeEventOf(result->outcomes[std::size_t(panel)].prediction.timeline, op);
    if (event >= 0) m_view->selectEvent(panel, event);
}

void ScheduleEditController::setShowOriginal(bool on) {
    m_showOriginal = on;
    resultShown(m_view->result());
}

AnalysisPtr ScheduleEditController::preview(ImportedSchedule edited) {
    const AnalysisPtr base = m_previewBase ? m_previewBase : m_view->result();
    const int panel = editedPanel(base);
    if (!base || panel < 0 || edited.schedule.opCount() > kPreviewMaxOps) return nullptr;
    AnalysisPtr shown;
    try {
        shown = previewWithEdited(*base, panel, m_document->project(), std::move(edited));
    } catch (const Error&) {
        endPreview(); // the drop will say why, if it comes to that
        return nullptr;
    }
    m_previewBase = base;
    emit previewChanged(shown, panel);
    return shown;
}

void ScheduleEditController::endPreview() {
    if (!m_previewBase) return;
    const AnalysisPtr base = std::exchange(m_previewBase, nullptr);
    emit previewChanged(base, editedPanel(base));
}

QString ScheduleEditController::saveSchedule(const QString& path) const {
    if (!m_session) return tr("Not designing a schedule by hand.");
    try {
        writeScheduleFile(m_session->editedSchedule(), path.toStdString());
    } catch (const std::exception& e) {
        return tr("Cannot save %1: %2").arg(path, QString::fromStdString(e.what()));
    }
    return {};
}

QString ScheduleEditController::saveEditList(const QString& path) const {
    if (!m_session) return tr("Not designing a schedule by hand.");
    try {
        writeFileAtomically(path.toStdString(), m_session->editListJson());
    } catch (const std::exception& e) {
        return tr("Cannot save %1: %2").arg(path, QString::fromStdString(e.what()));
    }
    return {};
}

QString ScheduleEditController::replayEditList(const QString& path) {
    const QString name = QFileInfo(path).fileName();
    EditList list;
    try {
        list = parseEditList(readTextFile(path.toStdString()), path.toStdString());
    } catch (const std::exception& e) {
        return tell(tr("Cannot replay %1: %2").arg(name, QString::fromStdString(e.what())));
    }
    if (!list.base.file.empty())
        return tell(tr("Cannot replay %1 here: it starts from the schedule file %2, and the window designs "
                       "from a registered schedule (stagecraft-cli edit --edits %1 replays it).")
                        .arg(name, QString::fromStdString(list.base.file)));
    // The list's shape, field by field as a user would set it (each refusal names the rule): the
    // parameters its base schedule reads.
    const ScheduleParams now = scheduleParams(m_document->project());
    const GeneratorInfo* info = tryFindGenerator(list.base.schedule);
    for (const ScheduleParamField& field : scheduleParamFields()) {
        const int wanted = list.base.params.*(field.member);
        if ((info && !readsParam(*info, field)) || wanted == now.*(field.member)) continue;
        if (const auto refused =
                m_document->setField(QString::fromLatin1(field.path.data(), qsizetype(field.path.size())),
                                     QString::number(wanted)))
            return tell(tr("Cannot replay %1: %2").arg(name, *refused));
    }
    const QString base = QString::fromStdString(list.base.schedule);
    m_document->setScheduleChecked(base, true);
    if (QString why = begin(base); !why.isEmpty()) return why;
    ListedEdits listed;
    try {
        listed = readListEdits(list, m_session->editor().schedule().sequenceSlices);
    } catch (const std::exception& e) {
        return tell(tr("Cannot replay %1: %2").arg(name, QString::fromStdString(e.what())));
    }
    if (QString why = step(listed.edits, tr("Replay %1").arg(name)); !why.isEmpty()) return why;
    tell(tr("Replayed %1: %2 edit(s) from %3.").arg(name).arg(listed.edits.size()).arg(base), true);
    return {};
}

} // namespace stagecraft::gui
