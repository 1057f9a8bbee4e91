#pragma once
// Dragging an op along its device's row in edit mode. The drop position snaps to the order: the
// pointer's time picks the gap between two ops of the device (before the first op whose middle is
// later, by the times the chart showed when the drag began, so the gaps stay put while the chart
// moves). While dragging, a ghost of the bar follows the pointer and a caret marks the gap; each
// gap is tried on core's editor (apply, then the inverse). A gap where the order runs is shown
// live: the window re-times the order it makes and the other ops move to their new times, the
// memory curve with them (ScheduleEditController::preview); the caret is then at the op's new
// place. A gap that breaks the order shows the chart as it was, drawn red with its reason and,
// for a deadlock, the ring's ops outlined. The drop applies the move through the controller (one
// undo step) or refuses it, and everything returns.
//
// Multi-select: Ctrl+click adds an op of the edited panel to the block (or takes it out), Ctrl+drag
// along a row selects the ops its band covers. Dragging an op of a block of two or more moves the
// whole block to the gap, in its order (edit/block_move.h), as one step; the block stays outlined.

#include "edit/edit.h"
#include "gui/chart_drag_editor.h"

#include <QPointF>
#include <QRectF>
#include <QString>
#include <optional>
#include <vector>

namespace stagecraft::gui {

class GanttView;
class ScheduleEditController;

class ScheduleEditDrag : public ChartDragEditor {
  public:
    ScheduleEditDrag(ScheduleEditController* controller, GanttView* view);

    bool beginDrag(int panel, int event) override;
    void dragTo(QPoint pos) override;
    void drop() override;
    void cancelDrag() override;
    void chartReplaced() override;
    void paintDrag(QPainter& painter) const override;
    bool toggleSelect(int panel, int event) override;
    bool selectBand(QPoint from, QPoint to) override;
    void clearBlock() override;
    void paintSelection(QPainter& painter) const override;

    /// The edits the current gap makes (none: the op, or the block, stays), and why they are
    /// refused ("" when valid).
    const std::vector<Edit>& pendingEdits() const { return m_edits; }
    const QString& refusal() const { return m_refusal; }
    /// Gaps tried and gaps previewed (re-timed and shown) since the drag began.
    int gapsTried() const { return m_tried; }
    int gapsPreviewed() const { return m_previewed; }

  private:
    struct Neighbour {
        Op op;
        int event = -1;
        double start = 0, end = 0;
    };

    /// Tries the gap whose edits are `edits` (none: the own place) and shows what they make.
    void tryGap(std::vector<Edit> edits);
    void end();
    /// The edits that take the dragged op (or its block) to `gap`; none for its own place.
    std::vector<Edit> editsFor(const std::pair<MoveAnchor, Op>& gap) const;

    ScheduleEditController* m_controller;
    GanttView* m_view;
    bool m_active = false;
    bool m_grabbed = false; ///< the first move set m_grabDx
    int m_panel = -1;
    int m_event = -1;
    Op m_op;
    std::vector<Op> m_dragged;    ///< the op, or the block it belongs to
    std::vector<Neighbour> m_row; ///< the other ops of the device, in time order, as shown at the start
    std::optional<std::pair<MoveAnchor, Op>> m_gap; ///< the gap tried last (anchor and neighbour)
    int m_tried = 0, m_previewed = 0;
    QRectF m_ghost;      ///< scene rectangle of the ghost
    double m_grabDx = 0; ///< pointer x minus the bar's left edge, in points
    double m_caretX = 0; ///< scene x of the caret
    std::vector<Edit> m_edits;
    QString m_refusal;
    std::vector<int> m_ring; ///< events of the ring's (or the dependency's) ops in the start's result
};

} // namespace stagecraft::gui
