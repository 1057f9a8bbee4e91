#include "gui/schedule_edit_controller.h"

#include "error.h"
#include "gui/gantt_view.h"
#include "gui/models/project_document.h"
#include "gui/models/schedule_edit_session.h"
#include "gui/panels.h"
#include "gui/schedule_edit_drag.h"
#include "io/schedule_file.h"

#include <QAction>
#include <QFileDialog>
#include <QMenu>
#include <QUndoCommand>
#include <fstream>

namespace stagecraft::gui {

/// One kept move: redo applies the edit again, undo applies core's inverse of it. A step of a
/// design that was since replaced changes that design only (it is no longer shown).
class ScheduleMoveCommand : public QUndoCommand {
  public:
    ScheduleMoveCommand(ScheduleEditController* controller, std::shared_ptr<ScheduleEditSession> session,
                        Edit edit, std::vector<Edit> inverse)
        : m_controller(controller), m_session(std::move(session)), m_edit(edit),
          m_inverse(std::move(inverse)) {
        setText(QString::fromStdString(formatEdit(edit, m_session->editor().schedule().splitBackward)));
    }
    void undo() override {
        m_session->revert(m_inverse);
        notify();
    }
    void redo() override {
        if (m_applied) { // pushed after the move was applied and kept
            m_applied = false;
            return;
        }
        m_inverse = m_session->apply(m_edit).inverse;
        notify();
    }

  private:
    void notify() {
        if (m_controller->m_session == m_session) m_controller->orderChanged(m_edit.op);
    }

    ScheduleEditController* m_controller;
    std::shared_ptr<ScheduleEditSession> m_session;
    Edit m_edit;
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
        const QString why =
            tr("%1 cannot be edited by hand: %2").arg(scheduleName, QString::fromStdString(e.what()));
        m_messages->showMessage(why.toHtmlEscaped());
        return why;
    }
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

QString ScheduleEditController::move(const Edit& edit) {
    if (!m_session) return tr("Not designing a schedule by hand (Edit > Design by Hand).");
    QString why;
    try {
        EditOutcome outcome = m_session->apply(edit);
        if (outcome.broken.kind == BreakKind::None) {
            m_document->undoStack()->push(
                new ScheduleMoveCommand(this, m_session, edit, std::move(outcome.inverse)));
            orderChanged(edit.op);
            return {};
        }
        why = QString::fromStdString(outcome.broken.message);
    } catch (const Error& e) {
        why = QString::fromStdString(e.what());
    }
    why =
        tr("Not moved (%1): %2")
            .arg(QString::fromStdString(formatEdit(edit, m_session->editor().schedule().splitBackward)), why);
    m_messages->showMessage(why.toHtmlEscaped());
    return why;
}

QString ScheduleEditController::shiftSelected(int by) {
    const auto selected = m_view->selection();
    const AnalysisPtr& result = m_view->result();
    if (!m_session || !selected || selected->first != editedPanel(result)) {
        const QString why =
            tr("Select an op of the schedule being designed by hand first (Edit > Design by Hand).");
        m_messages->showMessage(why.toHtmlEscaped(), MessageBar::Kind::Info);
        return why;
    }
    Edit edit;
    edit.kind = EditKind::Shift;
    edit.op = result->outcomes[std::size_t(selected->first)]
                  .prediction.timeline.events[std::size_t(selected->second)]
                  .op;
    edit.index = by;
    return move(edit);
}

void ScheduleEditController::orderChanged(const Op& moved) {
    m_follow = moved;
    emit changed();
}

void ScheduleEditController::resultShown(const AnalysisPtr& result) {
    const int panel = editedPanel(result);
    if (!m_follow || panel < 0) return;
    const Op op = *m_follow;
    m_follow.reset();
    const auto& events = result->outcomes[std::size_t(panel)].prediction.timeline.events;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const Op& e = events[i].op;
        if (events[i].lane == Lane::Compute && e.kind == op.kind && e.pipe == op.pipe &&
            e.stage == op.stage && e.mb == op.mb) {
            m_view->selectEvent(panel, int(i));
            return;
        }
    }
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
    std::ofstream out(path.toStdString(), std::ios::binary);
    out << m_session->editListJson();
    if (!out.flush()) return tr("Cannot save %1: the file cannot be written").arg(path);
    return {};
}

void ScheduleEditController::addActions(QMenu* menu) {
    menu->addSeparator();
    QAction* design = menu->addAction(tr("&Design by Hand"), this, [this] {
        // The selected bar's schedule, else the first shown one the project generates.
        const AnalysisPtr& result = m_view->result();
        if (!result) return;
        int panel = m_view->selection() ? m_view->selection()->first : -1;
        if (panel < 0 || result->outcomes[std::size_t(panel)].imported)
            for (std::size_t i = 0; i < result->outcomes.size() && panel < 0; ++i)
                if (!result->outcomes[i].imported) panel = int(i);
        if (panel < 0 || result->outcomes[std::size_t(panel)].imported) {
            m_messages->showMessage(tr("Show a registered schedule to design from first."),
                                    MessageBar::Kind::Info);
            return;
        }
        begin(QString::fromStdString(result->outcomes[std::size_t(panel)].name));
    });
    design->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    design->setStatusTip(tr("Edit the selected schedule's order by hand: drag ops, Alt+Left/Right"));
    QAction* earlier = menu->addAction(tr("Move Op &Earlier"), this, [this] { shiftSelected(-1); });
    earlier->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
    QAction* later = menu->addAction(tr("Move Op &Later"), this, [this] { shiftSelected(+1); });
    later->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
    // Save Edited Schedule / Save Edit List: ask where, write, say what went wrong.
    auto saveAction = [this, menu](const QString& title, const std::string& suffix, const QString& filter,
                                   QString (ScheduleEditController::*write)(const QString&) const) {
        menu->addAction(title, this, [=, this] {
            if (!m_session) return;
            const QString proposed = QString::fromStdString(m_session->baseName() + suffix);
            const QString path = chooseSavePath
                                     ? chooseSavePath(proposed)
                                     : QFileDialog::getSaveFileName(m_window, title, proposed, filter);
            if (path.isEmpty()) return;
            if (const QString error = (this->*write)(path); !error.isEmpty())
                m_messages->showMessage(error.toHtmlEscaped());
        });
    };
    saveAction(tr("Save Edited &Schedule…"), "-edited.csv",
               tr("torch CSV (*.csv);;Stagecraft schedule JSON (*.json)"),
               &ScheduleEditController::saveSchedule);
    saveAction(tr("Save Edit &List…"), ".edits.json", tr("Edit list (*.edits.json *.json)"),
               &ScheduleEditController::saveEditList);
}

} // namespace stagecraft::gui
