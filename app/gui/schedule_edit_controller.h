#pragma once
// Design by hand in the window: one schedule's order under core's ScheduleEditor
// (gui/models/schedule_edit_session.h), shown next to the schedule it started from as
// "edited from NAME", with the original drawn faintly behind the edited rows. Every kept step (a
// move, a split, a helper's moves) is one step of the document's undo stack (Ctrl+Z /
// Ctrl+Shift+Z), undone with core's exact inverses. A step that would break the order (a
// dependency, a deadlock ring) is refused and named; the chart always shows an order that runs.
// While a bar is dragged, each valid gap is previewed: the window shows the order it makes,
// analysed (previewChanged). The window re-analyses on changed(), with imported() among the
// schedules. The tools on the selected op and the helpers are in schedule_edit_tools.cpp.

#include "edit/edit.h"
#include "gui/models/analysis_runner.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QMenu;
class QWidget;

namespace stagecraft {
class ScheduleEditor;
struct ImportedSchedule;
} // namespace stagecraft

namespace stagecraft::gui {

class GanttView;
class MessageBar;
class ProjectDocument;
class ScheduleEditDrag;
class ScheduleEditSession;

class ScheduleEditController : public QObject {
    Q_OBJECT
  public:
    /// Schedules of more ops than this are not previewed while dragging (the analysis of each gap
    /// would take longer than a frame); the drop still re-times them. The analysis runner's
    /// threshold for analysing on a worker.
    static constexpr std::size_t kPreviewMaxOps = 60000;

    ScheduleEditController(ProjectDocument* document, GanttView* view, MessageBar* messages, QWidget* window);
    ~ScheduleEditController() override;

    bool isEditing() const { return m_session != nullptr; }
    ScheduleEditSession* session() const { return m_session.get(); }
    /// Start designing `scheduleName` (a shown registered schedule) by hand. Returns "" or why not.
    QString begin(const QString& scheduleName);
    /// The edited order as an analysis input (none when not editing).
    std::optional<ImportedSchedule> imported() const;
    /// Which chart panel shows the edited order in `result` (-1: none), and which its original.
    int editedPanel(const AnalysisPtr& result) const;
    int originalPanel(const AnalysisPtr& result) const;

    /// Applies `edit` as one undo step when the order still runs after it. Returns "" or why it was
    /// refused (the dependency or the ring, or the rule it breaks); shown in the message bar.
    QString move(const Edit& edit);
    /// Applies `edits` as one undo step named `label` (kept when the order runs after the last).
    QString step(const std::vector<Edit>& edits, const QString& label);
    /// Moves the chart's selected op, or the selected block, `by` places along its device's order
    /// (Alt+Left / Alt+Right).
    QString shiftSelected(int by);

    /// Multi-select: the ops of one device of the edited schedule that move together (a drag of
    /// one of them, Alt+Left / Alt+Right), in no particular order; empty: none.
    const std::vector<Op>& block() const { return m_block; }
    /// Ctrl+click: `op` joins the block or leaves it. An op of another device starts a new block;
    /// the first Ctrl+click also takes the chart's selected op when it is on the same device.
    void toggleBlockOp(const Op& op);
    void setBlock(std::vector<Op> ops);
    /// The block's edits (edit/block_move.h) as one undo step, named after the block.
    QString moveBlock(const std::vector<Edit>& edits);
    /// Alt+Up / Alt+Down: the selected op jumps over the run of one kind before / after it
    /// (edit/kind_jump.h).
    QString jumpSelected(bool later);
    /// The selected op's backward split into I and W, or merged back (an I or its W selected).
    QString splitSelected();
    QString mergeSelected();
    /// The selected op and the op after it on its device trade places.
    QString swapSelectedWithNext();
    /// The selected op's micro-batch runs on the other pipe of a two-pipe schedule (the pipe edit).
    QString pipeSelected();
    /// The selected op's stage posts its gradient sync right after it: added when the order holds
    /// none for that stage (the iteration tail posts it otherwise), moved there when it does.
    QString syncAfterSelected();
    /// The selected gradient sync or optimizer step leaves the order (back to the iteration tail).
    QString dropSelected();
    /// The helpers (edit/fill_bubbles.h, edit/repair.h), each one undo step; the message bar lists
    /// what they moved.
    QString fillBubbles();
    QString compact();
    /// The last move the window refused, made anyway and mended by core's repair: one undo step,
    /// the repair's moves listed with their reasons. "" or why not.
    QString repairRefused();
    /// The move refused last (Repair makes it); none after a kept step.
    const std::optional<Edit>& refusedMove() const { return m_refused; }

    /// Draw the original faintly behind the edited rows (View of Design by Hand, on by default).
    void setShowOriginal(bool on);
    bool showOriginal() const { return m_showOriginal; }

    /// The drag's live preview: the window shows `edited` (the order a gap makes) analysed, in
    /// place of the edited schedule's outcome. Returns the result shown, or null when the schedule
    /// is too big to preview (kPreviewMaxOps) or the order could not be analysed.
    AnalysisPtr preview(ImportedSchedule edited);
    /// Back to the result the preview started from (nothing when no preview is shown).
    void endPreview();
    /// The preview becomes the truth (a kept drop) or was replaced by a new result: forget it.
    void forgetPreview() { m_previewBase.reset(); }

    /// What the chart's drags go through (tests read its counters).
    ScheduleEditDrag* dragEditor() const { return m_drag.get(); }

    /// Edit > Design by Hand, the moves, the tools, the helpers and the saves.
    void addActions(QMenu* menu);
    /// Writes the edited order (.csv: torch's format; .json: Stagecraft's) or the edit list
    /// (docs/editing.md). Return "" or the error.
    QString saveSchedule(const QString& path) const;
    QString saveEditList(const QString& path) const;
    /// Replays an edit list (docs/editing.md) as `stagecraft-cli edit --edits` does: the project
    /// takes the list's pp, micro-batches and chunks and shows its base schedule (each an undoable
    /// project edit), the design starts from that schedule, and the list's edits apply as one
    /// undoable step. A list that starts from a schedule file, or whose edits break the order, is
    /// refused with the reason. Returns "" or the error (also shown).
    QString replayEditList(const QString& path);

    /// The window shows `result`: the op just moved is selected again in it, the ghost set.
    void resultShown(const AnalysisPtr& result);

    /// Set by the window: asks where to save (the argument is the proposed file name).
    std::function<QString(const QString&)> chooseSavePath;

  signals:
    /// The edited order changed (a move, its undo, a new design): analyse again.
    void changed();
    /// Editing started on `base`; the chart and the Metrics table show `edited` against it.
    void editingStarted(const QString& edited, const QString& base);
    /// Show `result` while dragging (a preview, or the result it started from), with the memory
    /// of panel `panel` (the edited schedule).
    void previewChanged(const stagecraft::gui::AnalysisPtr& result, int panel);

  private:
    friend class ScheduleStepCommand;
    /// After an undo step changed the order, and after a kept step.
    void orderChanged(const Op& moved);
    /// The selected op of the edited panel, or none (and a message saying to select one).
    std::optional<Op> selectedOp();
    /// Split or merge the selected op's backward.
    QString backwardStep(EditKind kind);
    /// Runs `helper` on a copy of the editor and keeps its edits as one step named `label`.
    QString helperStep(const QString& label, std::vector<Edit> (*helper)(ScheduleEditor&));
    void refuse(const QString& what, const QString& why);
    /// Shows `text` in the message bar (an error, or a hint when `hint`) and returns it.
    QString tell(const QString& text, bool hint = false);

    ProjectDocument* m_document;
    QPointer<GanttView> m_view;
    MessageBar* m_messages;
    QWidget* m_window;
    std::shared_ptr<ScheduleEditSession> m_session;
    std::unique_ptr<ScheduleEditDrag> m_drag;
    std::optional<Op> m_follow; ///< the op to select in the next result
    std::optional<Edit> m_refused;
    std::vector<Op> m_block;
    AnalysisPtr m_previewBase; ///< the result a drag's preview replaced (null: none shown)
    bool m_showOriginal = true;
};

} // namespace stagecraft::gui
