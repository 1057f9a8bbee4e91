#pragma once
// The window the Design by Hand tests drive: ZB-H1 at p = 4, m = 8 in unit time (docs/gui.md's
// worked example), designed by hand, and the helpers that find its bars and read its Metrics row.

#include "gui/gantt_view.h"
#include "gui/main_window.h"
#include "gui/models/metrics_model.h"
#include "gui/models/project_document.h"
#include "gui/panels.h"
#include "gui/schedule_edit_controller.h"
#include "gui_test_support.h"
#include "ir/op_name.h"

#include <QScrollBar>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

namespace stagecraft::gui::test {

inline bool sameOp(const Op& a, const Op& b) {
    return a.kind == b.kind && a.pipe == b.pipe && a.stage == b.stage && a.mb == b.mb;
}

/// An op by its one name ("0F1", "3W0": ir/op_name.h).
inline Op op(const char* name) {
    return *parseOpName(name);
}

class ScheduleEditFixture {
  protected:
    /// A shown window designing `schedule` by hand at p = 4, m = 8, unit costs.
    void openDesign(const char* schedule = "zb-h1") {
        m_dir = std::make_unique<QTemporaryDir>();
        m_window = std::make_unique<MainWindow>(quietWindowOptions(*m_dir));
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        // The Design Tools' shortcuts (Alt+arrows) act in the active window, as on a desktop; on a
        // real X server without a window manager nothing activates it unless asked.
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        Project project = defaultProject();
        project.schedules = {schedule};
        project.parallel.pp = 4;
        project.parallel.microbatches = 8;
        project.costs.mode = CostMode::Unit;
        m_window->document()->applyProject(project, QStringLiteral("by hand"));
        m_window->flushAnalysis();
        QCOMPARE(m_window->scheduleEditing()->begin(QString::fromLatin1(schedule)), QString());
        m_window->flushAnalysis();
        QCOMPARE(edited(), 1);
    }

    int edited() const { return m_window->scheduleEditing()->editedPanel(m_window->runner()->latest()); }

    /// The compute event of `o` in the edited panel of the result the chart shows.
    int eventOf(const Op& o) const {
        const auto& events =
            m_window->ganttView()->result()->outcomes[std::size_t(edited())].prediction.timeline.events;
        for (std::size_t i = 0; i < events.size(); ++i)
            // A gradient sync's box is its collective, on the communication lane.
            if ((events[i].lane == Lane::Compute || !isComputeKind(o.kind)) && sameOp(events[i].op, o))
                return int(i);
        return -1;
    }

    QPoint toViewport(const QPointF& p) const {
        GanttView* view = m_window->ganttView();
        const double k = view->pixelsPerPoint();
        return QPoint(int(p.x() * k), int(p.y() * k) - view->verticalScrollBar()->value());
    }

    QPoint centreOf(const Op& o) const {
        return toViewport(m_window->ganttView()->eventBox(edited(), eventOf(o)).center());
    }

    /// Viewport point just inside bar `o`'s left (`right`: right) edge, on its row.
    QPoint edgeOf(const Op& o, bool right) const {
        const QRectF box = m_window->ganttView()->eventBox(edited(), eventOf(o));
        return toViewport(QPointF(right ? box.right() - 1 : box.left() + 1, box.center().y()));
    }

    QString metric(int column) const {
        MetricsModel* model = m_window->metricsPanel()->model();
        return model->index(edited(), column).data().toString();
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<MainWindow> m_window;
};

} // namespace stagecraft::gui::test
