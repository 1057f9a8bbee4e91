// Design by hand's tools in the window (issue 24): Alt+Up / Alt+Down jump over a kind, swap with
// the next op, split and merge a backward, fill bubbles, compact, a refused move made anyway and
// repaired, a micro-batch onto Chimera's other pipe, and a gradient sync dropped and posted. Each
// is one undo step that gives back the order before it byte for byte.

#include "gui/models/schedule_edit_session.h"
#include "gui/schedule_edit_drag.h"
#include "io/torch_csv.h"
#include "schedule_edit_fixture.h"

#include <QAction>
#include <QImage>
#include <QPushButton>
#include <QUndoStack>

using namespace stagecraft;
using namespace stagecraft::gui;
using test::op;

class TestScheduleEditTools : public QObject, test::ScheduleEditFixture {
    Q_OBJECT
  private slots:
    void initTestCase() { test::isolateSettings(); }
    void cleanup() { m_window.reset(); }

    void altUpAndDownJumpOverAKind() {
        openDesign("zb-h1");
        // Device 0 warms up with F0 F1 F2 F3: Alt+Down takes 0F0 past all three forwards.
        select(op("0F0"));
        QTest::keyClick(m_window->ganttView(), Qt::Key_Down, Qt::AltModifier);
        m_window->flushAnalysis();
        QCOMPARE(editor().find(op("0F0")).index, 3);
        QCOMPARE(undoStack()->undoText(), QStringLiteral("shift 0F0 +3"));
        // The moved op stays selected: Alt+Up takes it back before the forwards.
        QTest::keyClick(m_window->ganttView(), Qt::Key_Up, Qt::AltModifier);
        m_window->flushAnalysis();
        QCOMPARE(editor().find(op("0F0")).index, 0);
        QCOMPARE(undoStack()->count(), 3);
        // Nothing before the first op: said, nothing kept.
        QTest::keyClick(m_window->ganttView(), Qt::Key_Up, Qt::AltModifier);
        QCOMPARE(undoStack()->count(), 3);
        QVERIFY2(m_window->messageBar()->text().contains(QStringLiteral("nothing before it to jump over")),
                 qPrintable(m_window->messageBar()->text()));
    }

    void swapWithTheNextOp() {
        openDesign("zb-h1");
        const std::string original = csv();
        const OpRef at = editor().find(op("3W0"));
        const Op next = editor().schedule().order[3][std::size_t(at.index) + 1];
        select(op("3W0"));
        trigger("Swap with Next Op");
        QCOMPARE(editor().find(op("3W0")).index, at.index + 1);
        QCOMPARE(editor().find(next).index, at.index);
        QCOMPARE(undoStack()->count(), 2);
        undoStack()->undo();
        QCOMPARE(csv(), original);
    }

    void splitAndMergeABackward() {
        openDesign("1f1b");
        const std::string original = csv();
        QVERIFY(!editor().schedule().splitBackward);
        select(op("3B0"));
        trigger("Split Backward");
        QVERIFY(editor().schedule().splitBackward);
        QVERIFY(editor().find(op("3W0")).valid());
        QVERIFY(!editor().isWhole(op("3B0")));
        QCOMPARE(undoStack()->undoText(), QStringLiteral("split 3B0"));
        // The W can now move alone; merged back, the order is 1F1B's again.
        select(op("3W0"));
        trigger("Merge Backward");
        QCOMPARE(csv(), original);
        QCOMPARE(undoStack()->count(), 3);
        undoStack()->undo();
        undoStack()->undo();
        QCOMPARE(csv(), original);
    }

    void fillBubblesAndCompactAreOneStepEach() {
        openDesign("zb-h1");
        // 3W0 two places later leaves a bubble on device 3 and costs a unit.
        Edit delay;
        delay.kind = EditKind::Shift;
        delay.op = op("3W0");
        delay.index = 2;
        QCOMPARE(m_window->scheduleEditing()->move(delay), QString());
        const double delayed = editor().makespan();
        QCOMPARE(delayed, 28.0);
        const std::string before = csv();
        for (const char* helper : {"Fill Bubbles", "Compact"}) {
            const int steps = undoStack()->index();
            trigger(helper);
            QCOMPARE(undoStack()->index(), steps + 1);
            // No op starts later (core's promise); the delayed W goes back into its gap.
            QVERIFY2(editor().makespan() <= delayed, qPrintable(m_window->messageBar()->text()));
            QVERIFY(editor().runs());
            // The message lists the moves; filling puts the delayed W back into its gap.
            const QString message = m_window->messageBar()->text();
            QVERIFY2(message.contains(QStringLiteral(" move(s)): move ")), qPrintable(message));
            if (QString::fromUtf8(helper) == QStringLiteral("Fill Bubbles"))
                QVERIFY2(message.contains(QStringLiteral("move 3W0 before 3F4")), qPrintable(message));
            undoStack()->undo();
            QCOMPARE(csv(), before);
        }
    }

    void aRefusedMoveIsMadeAndRepairedInOneStep() {
        openDesign("zb-h1");
        const std::string original = csv();
        // 0I0 before 0F2 deadlocks: refused, and the message offers to make it and repair.
        Edit ring;
        ring.op = op("0I0");
        ring.anchor = MoveAnchor::Before;
        ring.other = op("0F2");
        QVERIFY(!m_window->scheduleEditing()->move(ring).isEmpty());
        QVERIFY(m_window->scheduleEditing()->refusedMove());
        QPushButton* button = m_window->messageBar()->actionButton();
        QVERIFY(button->isVisible());
        QCOMPARE(button->text(), QStringLiteral("Move and Repair"));
        QTest::mouseClick(button, Qt::LeftButton);
        m_window->flushAnalysis();
        QVERIFY(editor().runs());
        QCOMPARE(undoStack()->count(), 2);
        QVERIFY2(undoStack()->undoText().startsWith(QStringLiteral("move 0I0 before 0F2 and repair (")),
                 qPrintable(undoStack()->undoText()));
        const QString message = m_window->messageBar()->text();
        QVERIFY2(message.contains(QStringLiteral("1. move ")) && message.contains(QStringLiteral("stuck")),
                 qPrintable(message));
        QVERIFY(!m_window->scheduleEditing()->refusedMove());
        // The result is analysed like any order; undo gives the original back exactly.
        QVERIFY(m_window->runner()->latest()->refusals.empty());
        undoStack()->undo();
        QCOMPARE(csv(), original);
        // With nothing refused, Repair says so.
        QVERIFY(m_window->scheduleEditing()->repairRefused().startsWith(QStringLiteral("Nothing to repair")));
    }

    void aBlockOfOpsMovesAsOneStep() {
        openDesign("zb-h1");
        const std::string original = csv();
        GanttView* view = m_window->ganttView();
        // Ctrl+click 0W0 and 0W1: a block of two on device 0, outlined.
        QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::ControlModifier, centreOf(op("0W0")));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::ControlModifier, centreOf(op("0W1")));
        QCOMPARE(m_window->scheduleEditing()->block().size(), std::size_t(2));
        // Alt+Right: both one place later, one undo step.
        const OpRef w0 = editor().find(op("0W0")), w1 = editor().find(op("0W1"));
        QTest::keyClick(view, Qt::Key_Right, Qt::AltModifier);
        m_window->flushAnalysis();
        QCOMPARE(editor().find(op("0W0")).index, w0.index + 1);
        QCOMPARE(editor().find(op("0W1")).index, w1.index + 1);
        QCOMPARE(undoStack()->undoText(), QStringLiteral("shift 0W0, 0W1 +1"));
        undoStack()->undo();
        m_window->flushAnalysis();
        QCOMPARE(csv(), original);

        // Dragging one of them drags the block: both land after 0F5, in their order.
        const QPoint from = centreOf(op("0W0"));
        const QPoint to = edgeOf(op("0F5"), true);
        QTest::mousePress(view->viewport(), Qt::LeftButton, {}, from);
        QTest::mouseMove(view->viewport(), from + QPoint(10, 0));
        QTest::mouseMove(view->viewport(), to);
        view->viewport()->repaint();
        const QImage shot = view->viewport()->grab().toImage();
        QVERIFY(shot.save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/design-by-hand-block.png")));
        QCOMPARE(m_window->scheduleEditing()->dragEditor()->pendingEdits().size(), std::size_t(2));
        QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, to);
        m_window->flushAnalysis();
        const OpRef after = editor().find(op("0W0"));
        QCOMPARE(editor().schedule().order[0][std::size_t(after.index) - 1], op("0F5"));
        QCOMPARE(editor().find(op("0W1")).index, after.index + 1);
        QVERIFY2(undoStack()->undoText().startsWith(QStringLiteral("move 0W0, 0W1 before 0I")),
                 qPrintable(undoStack()->undoText())); // the op after 0F5
        QCOMPARE(undoStack()->index(), 2);
        undoStack()->undo();
        QCOMPARE(csv(), original);

        // A plain click ends the block; Ctrl+drag along device 1's row selects what it covers.
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, centreOf(op("0F0")));
        QVERIFY(m_window->scheduleEditing()->block().empty());
        const QPoint start = edgeOf(op("1F0"), false), end = edgeOf(op("1F2"), true);
        QTest::mousePress(view->viewport(), Qt::LeftButton, Qt::ControlModifier, start);
        QTest::mouseMove(view->viewport(), end);
        QTest::mouseRelease(view->viewport(), Qt::LeftButton, Qt::ControlModifier, end);
        std::vector<Op> band = m_window->scheduleEditing()->block();
        QCOMPARE(band.size(), std::size_t(3)); // 1F0 1F1 1F2
        for (const Op& o : band) QCOMPARE(int(o.kind), int(OpKind::F));
    }

    void theOtherPipeAndAGradientSync() {
        openDesign("chimera");
        const Schedule original = editor().schedule();
        // Micro-batch 7 onto the other pipe: one step, and that pipe's eager syncs follow it.
        const Op f = editor().find(op("0F7")).valid() ? op("0F7") : op("p1:0F7");
        const std::string to = f.pipe == 0 ? "1" : "0";
        select(f);
        trigger("Move Micro-batch to Other Pipe");
        QVERIFY(!editor().find(f).valid());
        QVERIFY(editor().runs());
        QCOMPARE(undoStack()->undoText(), QString::fromStdString("pipe 7 to " + to));
        m_window->ganttView()->viewport()->repaint();
        QVERIFY(m_window->ganttView()->viewport()->grab().toImage().save(
            QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/design-by-hand-pipe.png")));
        undoStack()->undo();
        m_window->flushAnalysis();
        QVERIFY(editor().schedule() == original);

        // Drop an eager sync (the iteration tail posts it again), then post it right after the
        // stage's last backward, and undo both.
        const Op sync = op("p1:3SYNC"), last = op("p1:3B7");
        select(sync);
        trigger("Drop Sync");
        QVERIFY2(!editor().find(sync).valid(), qPrintable(m_window->messageBar()->text()));
        QVERIFY(!editor().find(op("3SYNC")).valid()); // its replica's sync left with it: one collective
        QVERIFY(editor().runs());
        QCOMPARE(undoStack()->undoText(), QStringLiteral("drop p1:3SYNC"));
        select(last);
        trigger("Post Sync After Op");
        QCOMPARE(undoStack()->undoText(), QStringLiteral("add p1:3SYNC after p1:3B7"));
        QCOMPARE(editor().find(sync).index, editor().find(last).index + 1);
        QVERIFY(editor().find(op("3SYNC")).valid()); // the replica's, after its last backward
        QVERIFY(editor().runs());
        // The stage's sync posted after an op of another stage's pipe is its own stage's: 0B4
        // posts 0SYNC, which then runs before 0B5, a backward it reduces: refused, named.
        select(op("0B4"));
        trigger("Post Sync After Op");
        QVERIFY2(
            m_window->messageBar()->text().contains(QStringLiteral("0SYNC runs before its dependency 0B5")),
            qPrintable(m_window->messageBar()->text()));
        undoStack()->undo();
        undoStack()->undo();
        m_window->flushAnalysis();
        QVERIFY(editor().schedule() == original);
    }

  private:
    const ScheduleEditor& editor() const { return m_window->scheduleEditing()->session()->editor(); }
    std::string csv() const {
        return scheduleToTorchCsv(m_window->scheduleEditing()->session()->editedSchedule());
    }
    QUndoStack* undoStack() const { return m_window->document()->undoStack(); }

    void select(const Op& o) {
        m_window->ganttView()->selectEvent(edited(), eventOf(o));
        m_window->ganttView()->setFocus();
    }

    void trigger(const char* title) {
        QAction* action = m_window->findChild<QAction*>(QStringLiteral("design.") + QString::fromUtf8(title));
        QVERIFY2(action, title);
        action->trigger();
        m_window->flushAnalysis();
    }
};

QTEST_MAIN(TestScheduleEditTools)
#include "tst_schedule_edit_tools.moc"
