// Design by hand: the tools on the selected op (jump over a kind, split, merge, swap, the other
// pipe, post or drop a gradient sync), the helpers (fill bubbles, compact, repair a refused move)
// and the Edit menu's entries. Each kept tool is one undo step through
// ScheduleEditController::step.
#include "edit/block_move.h"
#include "edit/fill_bubbles.h"
#include "edit/kind_jump.h"
#include "edit/repair.h"
#include "error.h"
#include "gui/gantt_view.h"
#include "gui/models/schedule_edit_session.h"
#include "gui/panels.h"
#include "gui/schedule_edit_controller.h"
#include "ir/op_name.h"

#include <QAction>
#include <QFileDialog>
#include <QMenu>
#include <QStringList>
#include <algorithm>

namespace stagecraft::gui {
namespace {

/// "move 0W0, 0W1 after 0F5" / "shift 0F1, 0F2 +1": a block's step, its ops in their order.
QString blockLabel(const ScheduleEditor& editor, const std::vector<Edit>& edits) {
    std::vector<Op> ops;
    ops.reserve(edits.size());
    for (const Edit& edit : edits) ops.push_back(edit.op);
    const Schedule& schedule = editor.schedule();
    QStringList names;
    for (const Op& op : orderedBlock(editor, ops))
        names << QString::fromStdString(opName(op, schedule.splitBackward, schedule.sequenceSlices));
    const Edit& first = edits.front();
    if (first.kind == EditKind::Shift)
        return QStringLiteral("shift %1 %2%3")
            .arg(names.join(QStringLiteral(", ")), first.index > 0 ? QStringLiteral("+") : QString())
            .arg(first.index);
    return QStringLiteral("move %1 %2 %3")
        .arg(names.join(QStringLiteral(", ")),
             first.anchor == MoveAnchor::Before ? QStringLiteral("before") : QStringLiteral("after"),
             QString::fromStdString(opName(first.other, schedule.splitBackward, schedule.sequenceSlices)));
}

/// The backward op (B) of `op`'s micro-batch and stage: what split and merge name.
Op backwardOf(Op op) {
    op.kind = OpKind::B;
    return op;
}

} // namespace

void ScheduleEditController::toggleBlockOp(const Op& op) {
    if (!m_session) return;
    const ScheduleEditor& editor = m_session->editor();
    const OpRef at = editor.find(op);
    if (!m_block.empty() && editor.find(m_block.front()).device != at.device) m_block.clear();
    const auto same = [&](const Op& o) {
        return o.kind == op.kind && o.pipe == op.pipe && o.stage == op.stage && o.mb == op.mb;
    };
    if (m_block.empty()) // the op selected by a plain click before joins
        if (const auto selected = m_view->selection();
            selected && selected->first == editedPanel(m_view->result()) && selected->second >= 0 &&
            std::size_t(selected->second) <
                m_view->result()->outcomes[std::size_t(selected->first)].prediction.timeline.events.size()) {
            const Op& first = m_view->result()
                                  ->outcomes[std::size_t(selected->first)]
                                  .prediction.timeline.events[std::size_t(selected->second)]
                                  .op;
            if (!same(first) && editor.find(first).device == at.device) m_block.push_back(first);
        }
    const auto it = std::find_if(m_block.begin(), m_block.end(), same);
    if (it != m_block.end())
        m_block.erase(it);
    else
        m_block.push_back(op);
    setBlock(std::move(m_block));
}

void ScheduleEditController::setBlock(std::vector<Op> ops) {
    m_block = std::move(ops);
    if (m_block.size() > 1)
        m_messages->showMessage(tr("%n ops selected on one device: drag one of them, or press Alt+Left / "
                                   "Alt+Right, to move them together. A plain click ends the selection.",
                                   nullptr, int(m_block.size()))
                                    .toHtmlEscaped(),
                                MessageBar::Kind::Info);
    m_view->viewport()->update();
}

QString ScheduleEditController::moveBlock(const std::vector<Edit>& edits) {
    if (!m_session || edits.empty()) return tr("Not designing a schedule by hand (Edit > Design by Hand).");
    QString label;
    try {
        label = blockLabel(m_session->editor(), edits);
    } catch (const Error& e) {
        return tell(QString::fromStdString(e.message()));
    }
    return step(edits, label);
}

QString ScheduleEditController::jumpSelected(bool later) {
    const std::optional<Op> selected = selectedOp();
    if (!selected) return tr("Select an op of the schedule being designed by hand first.");
    Edit jump;
    try {
        jump = kindJump(m_session->editor(), *selected, later);
    } catch (const Error& e) {
        return tell(QString::fromStdString(e.message()), true);
    }
    return move(jump);
}

QString ScheduleEditController::splitSelected() {
    return backwardStep(EditKind::Split);
}

QString ScheduleEditController::mergeSelected() {
    return backwardStep(EditKind::Merge);
}

QString ScheduleEditController::backwardStep(EditKind kind) {
    const std::optional<Op> selected = selectedOp();
    if (!selected) return tr("Select an op of the schedule being designed by hand first.");
    Edit edit;
    edit.kind = kind;
    edit.op = backwardOf(*selected); // split and merge name the B, whichever of B and W is selected
    return move(edit);
}

QString ScheduleEditController::swapSelectedWithNext() {
    const std::optional<Op> selected = selectedOp();
    if (!selected) return tr("Select an op of the schedule being designed by hand first.");
    const ScheduleEditor& editor = m_session->editor();
    const OpRef at = editor.find(*selected);
    const auto& ops = editor.schedule().order[std::size_t(at.device)];
    if (std::size_t(at.index) + 1 >= ops.size()) {
        return tell(tr("%1 is the last op of device %2: nothing to swap it with.")
                        .arg(QString::fromStdString(opName(*selected, editor.schedule().splitBackward,
                                                           editor.schedule().sequenceSlices)))
                        .arg(at.device),
                    true);
    }
    Edit swap;
    swap.kind = EditKind::Swap;
    swap.op = *selected;
    swap.other = ops[std::size_t(at.index) + 1];
    return move(swap);
}

QString ScheduleEditController::pipeSelected() {
    const std::optional<Op> selected = selectedOp();
    if (!selected) return tr("Select an op of the schedule being designed by hand first.");
    const Schedule& s = m_session->editor().schedule();
    if (s.pipes != 2 || selected->mb < 0)
        return tell(tr("Select an op of a micro-batch in a schedule with two pipes (Chimera, BitPipe): "
                       "its micro-batch then runs on the other pipe."),
                    true);
    Edit pipe;
    pipe.kind = EditKind::Pipe;
    pipe.op.mb = selected->mb;
    pipe.index = 1 - selected->pipe;
    return move(pipe);
}

QString ScheduleEditController::syncAfterSelected() {
    const std::optional<Op> selected = selectedOp();
    if (!selected) return tr("Select an op of the schedule being designed by hand first.");
    if (!isComputeKind(selected->kind))
        return tell(tr("Select a compute op: its stage's gradient sync is posted right after it."), true);
    Edit post;
    post.op = Op{OpKind::GradSync, selected->pipe, 0, selected->stage, -1};
    post.kind = m_session->editor().find(post.op).valid() ? EditKind::Move : EditKind::Add;
    post.anchor = MoveAnchor::After;
    post.other = *selected;
    return move(post); // an added sync brings its replicas' along (docs/editing.md)
}

QString ScheduleEditController::dropSelected() {
    const std::optional<Op> selected = selectedOp();
    if (!selected) return tr("Select an op of the schedule being designed by hand first.");
    Edit drop;
    drop.kind = EditKind::Drop;
    drop.op = *selected;
    return move(drop); // its replicas' syncs leave with it: one collective
}

QString ScheduleEditController::helperStep(const QString& label,
                                           std::vector<Edit> (*helper)(ScheduleEditor&)) {
    if (!m_session) return tr("Not designing a schedule by hand (Edit > Design by Hand).");
    // On a copy: the step is then applied to the session's editor, which records its inverse.
    ScheduleEditor trial = m_session->editor();
    const std::vector<Edit> edits = helper(trial);
    if (edits.empty()) {
        return tell(tr("%1: no op to move, every gap is used as far as this helper can.").arg(label), true);
    }
    const QString name = tr("%1 (%n move(s))", nullptr, int(edits.size())).arg(label);
    if (QString why = step(edits, name); !why.isEmpty()) return why;
    QStringList lines;
    for (const Edit& edit : edits)
        lines << QString::fromStdString(formatEdit(edit, m_session->editor().schedule()));
    m_messages->showMessage(tr("%1: %2").arg(name, lines.join(QStringLiteral("; "))).toHtmlEscaped(),
                            MessageBar::Kind::Info);
    return {};
}

QString ScheduleEditController::fillBubbles() {
    return helperStep(tr("Fill bubbles"), &stagecraft::fillBubbles);
}

QString ScheduleEditController::compact() {
    return helperStep(tr("Compact"), &stagecraft::compact);
}

QString ScheduleEditController::repairRefused() {
    if (!m_session) return tr("Not designing a schedule by hand (Edit > Design by Hand).");
    if (!m_refused) {
        return tell(tr("Nothing to repair: the order runs. Repair makes the last move the window "
                       "refused (a drop drawn red) and mends the order around it."),
                    true);
    }
    const Edit wanted = *m_refused;
    ScheduleEditor trial = m_session->editor();
    std::vector<RepairMove> moves;
    RepairSearch search;
    try {
        trial.apply(wanted);
        moves = repair(trial, &search);
    } catch (const Error& e) {
        return tell(QString::fromStdString(e.message()));
    }
    std::vector<Edit> edits{wanted};
    for (const RepairMove& m : moves) edits.push_back(m.edit);
    const QString name = tr("%1 and repair (%2)")
                             .arg(QString::fromStdString(formatEdit(wanted, trial.schedule())),
                                  QString::fromStdString(describeRepair(moves.size(), search)));
    if (QString why = step(edits, name); !why.isEmpty()) return why;
    // The repair's moves, each with why it was needed: the message bar's lines.
    QString text = name.toHtmlEscaped();
    for (std::size_t i = 0; i < moves.size(); ++i)
        text += QStringLiteral("<br>%1. %2 (%3)")
                    .arg(i + 1)
                    .arg(QString::fromStdString(formatEdit(moves[i].edit, m_session->editor().schedule()))
                             .toHtmlEscaped(),
                         QString::fromStdString(moves[i].reason).toHtmlEscaped());
    m_messages->showMessage(text, MessageBar::Kind::Info);
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
    design->setStatusTip(tr("Edit the selected schedule's order by hand: drag ops, Alt+arrows"));
    // The tools on the selected op, with their keys.
    QMenu* tools = menu->addMenu(tr("Design &Tools"));
    const auto tool = [this, tools](const char* id, const QString& title, const QKeySequence& keys,
                                    const QString& tip, auto run) {
        QAction* action = tools->addAction(title, this, run);
        if (!keys.isEmpty()) action->setShortcut(keys);
        action->setStatusTip(tip);
        action->setObjectName(QStringLiteral("design.") + QLatin1String(id)); // tests find it by this
        return action;
    };
    tool("Move Op Earlier", tr("Move Op &Earlier"), QKeySequence(Qt::ALT | Qt::Key_Left),
         tr("One place earlier in its device's order"), [this] { shiftSelected(-1); });
    tool("Move Op Later", tr("Move Op &Later"), QKeySequence(Qt::ALT | Qt::Key_Right),
         tr("One place later in its device's order"), [this] { shiftSelected(+1); });
    tool("Jump Earlier over a Kind", tr("Jump Earlier over a &Kind"), QKeySequence(Qt::ALT | Qt::Key_Up),
         tr("Before the run of ops of one kind in front of it"), [this] { jumpSelected(false); });
    tool("Jump Later over a Kind", tr("Jump Later over a K&ind"), QKeySequence(Qt::ALT | Qt::Key_Down),
         tr("After the run of ops of one kind behind it"), [this] { jumpSelected(true); });
    tool("Swap with Next Op", tr("&Swap with Next Op"), {},
         tr("The selected op and the next op of its device trade places"),
         [this] { swapSelectedWithNext(); });
    tool("Split Backward", tr("S&plit Backward"), {}, tr("The selected backward becomes I then W"),
         [this] { splitSelected(); });
    tool("Merge Backward", tr("&Merge Backward"), {},
         tr("The selected I and the W right after it become one backward"), [this] { mergeSelected(); });
    tool("Move Micro-batch to Other Pipe", tr("Move Micro-batch to Ot&her Pipe"), {},
         tr("The selected op's micro-batch runs on the other pipe of Chimera or BitPipe"),
         [this] { pipeSelected(); });
    tool("Post Sync After Op", tr("Post Stage's Gradient S&ync After Op"), {},
         tr("The selected op's stage posts its gradient sync right after it (added, or moved there)"),
         [this] { syncAfterSelected(); });
    tool("Drop Sync", tr("&Drop Gradient Sync"), {},
         tr("The selected sync or optimizer step leaves the order: the iteration tail posts it"),
         [this] { dropSelected(); });
    tools->addSeparator();
    tool("Fill Bubbles", tr("&Fill Bubbles"), {},
         tr("Slide W ops into idle gaps of their device (memory never rises)"), [this] { fillBubbles(); });
    tool("Compact", tr("&Compact"), {}, tr("Pull every op into the earliest idle gap where it fits"),
         [this] { compact(); });
    tool("Repair Refused Move", tr("&Repair Refused Move"), {},
         tr("Make the last refused move and mend the order around it"), [this] { repairRefused(); });
    tools->addSeparator();
    QAction* ghost = tools->addAction(tr("Show &Original Behind Edited"));
    ghost->setCheckable(true);
    ghost->setChecked(m_showOriginal);
    ghost->setObjectName(QStringLiteral("design.Show Original Behind Edited"));
    connect(ghost, &QAction::toggled, this, &ScheduleEditController::setShowOriginal);
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
    menu->addAction(tr("&Replay Edit List…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(m_window, tr("Replay Edit List"), {},
                                                          tr("Edit list (*.edits.json *.json)"));
        if (!path.isEmpty()) replayEditList(path);
    });
}

} // namespace stagecraft::gui
