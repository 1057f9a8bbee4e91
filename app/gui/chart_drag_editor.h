#pragma once
// What the Gantt view asks while a bar is dragged in edit mode (schedule_edit_drag.h implements
// it on core's ScheduleEditor): the view only reports the press, the moves and the drop, and lets
// the editor paint its ghost and caret over the chart. Positions are viewport pixels.

#include <QPoint>

class QPainter;

namespace stagecraft::gui {

class GanttView;

class ChartDragEditor {
  public:
    virtual ~ChartDragEditor() = default;
    /// A press on bar `event` of `panel`: whether it starts a drag of that op.
    virtual bool beginDrag(int panel, int event) = 0;
    /// The pointer moved to `pos` while dragging.
    virtual void dragTo(QPoint pos) = 0;
    /// Released at the last position: apply the move (or refuse it, saying why).
    virtual void drop() = 0;
    /// Escape, a release where it was pressed, or another editor: the drag ends, nothing moves.
    virtual void cancelDrag() = 0;
    /// The view was given a new result under the drag: the drag ends, and what it showed is gone.
    virtual void chartReplaced() = 0;
    /// Paints the drag in scene points (the painter is set up as for the chart's bars).
    virtual void paintDrag(QPainter& painter) const = 0;
    /// Ctrl+click on bar `event` of `panel`: whether the editor took it into (or out of) its
    /// selection of several ops.
    virtual bool toggleSelect(int panel, int event) = 0;
    /// Ctrl+drag from `from` to `to`: whether the editor selected the bars the band covers.
    virtual bool selectBand(QPoint from, QPoint to) = 0;
    /// A plain click or Escape: the selection of several ops ends.
    virtual void clearBlock() = 0;
    /// Paints that selection, drag or not, in scene points.
    virtual void paintSelection(QPainter& painter) const = 0;
};

} // namespace stagecraft::gui
