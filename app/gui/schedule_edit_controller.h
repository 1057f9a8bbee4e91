#pragma once
// Design by hand in the window: one schedule's order under core's ScheduleEditor
// (gui/models/schedule_edit_session.h), shown next to the schedule it started from as
// "edited from NAME". Every kept move is one step of the document's undo stack (Ctrl+Z /
// Ctrl+Shift+Z), undone with core's exact inverse. A move that would break the order (a
// dependency, a deadlock ring) is refused and named; the chart always shows an order that runs.
// The window re-analyses on changed(), with imported() among the schedules.

#include "edit/edit.h"
#include "gui/models/analysis_runner.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

class QMenu;
class QWidget;

namespace stagecraft::gui {

class GanttView;
class MessageBar;
class ProjectDocument;
class ScheduleEditDrag;
class ScheduleEditSession;

class ScheduleEditController : public QObject {
    Q_OBJECT
  public:
    ScheduleEditController(ProjectDocument* document, GanttView* view, MessageBar* messages, QWidget* window);
    ~ScheduleEditController() override;

    bool isEditing() const { return m_session != nullptr; }
    ScheduleEditSession* session() const { return m_session.get(); }
    /// Start designing `scheduleName` (a shown registered schedule) by hand. Returns "" or why not.
    QString begin(const QString& scheduleName);
    /// The edited order as an analysis input (none when not editing).
    std::optional<ImportedSchedule> imported() const;
    /// Which chart panel shows the edited order in `result` (-1: none).
    int editedPanel(const AnalysisPtr& result) const;

    /// Applies `edit` as one undo step when the order still runs after it. Returns "" or why it was
    /// refused (the dependency or the ring, or the rule it breaks); shown in the message bar.
    QString move(const Edit& edit);
    /// Moves the chart's selected op `by` places along its device's order (Alt+Left / Alt+Right).
    QString shiftSelected(int by);

    /// Edit > Design by Hand, the moves and the saves.
    void addActions(QMenu* menu);
    /// Writes the edited order (.csv: torch's format; .json: Stagecraft's) or the edit list
    /// (docs/editing.md). Return "" or the error.
    QString saveSchedule(const QString& path) const;
    QString saveEditList(const QString& path) const;

    /// The window shows `result`: the op just moved is selected again in it.
    void resultShown(const AnalysisPtr& result);

    /// Set by the window: asks where to save (the argument is the proposed file name).
    std::function<QString(const QString&)> chooseSavePath;

  signals:
    /// The edited order changed (a move, its undo, a new design): analyse again.
    void changed();
    /// Editing started on `base`; the chart and the Metrics table show `edited` against it.
    void editingStarted(const QString& edited, const QString& base);

  private:
    friend class ScheduleMoveCommand;
    /// After an undo step changed the order, and after a kept move.
    void orderChanged(const Op& moved);

    ProjectDocument* m_document;
    QPointer<GanttView> m_view;
    MessageBar* m_messages;
    QWidget* m_window;
    std::shared_ptr<ScheduleEditSession> m_session;
    std::unique_ptr<ScheduleEditDrag> m_drag;
    std::optional<Op> m_follow; ///< the op to select in the next result
};

} // namespace stagecraft::gui
