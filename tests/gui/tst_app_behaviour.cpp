// The behaviours a researcher relies on when really using the app: big inputs are refused or
// confirmed before they run, numbers are never silently altered, the wheel changes a field only
// when it has focus, messages go with their cause, the memory budget respects the GPU, fields
// the cost model ignores are disabled, shortcuts work, and --help needs no display.

#include "eval/work_estimate.h"
#include "gui/gantt_view.h"
#include "gui/main_window.h"
#include "gui/models/analysis_runner.h"
#include "gui/models/metrics_model.h"
#include "gui/models/project_document.h"
#include "gui/panels.h"
#include "gui/parameter_panel.h"
#include "gui_test_support.h"
#include "io/chrome_trace.h"
#include "ir/op_name.h"

#include <QAction>
#include <QApplication>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QProcess>
#include <QProgressBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>
#include <QWheelEvent>
#include <algorithm>
#include <unistd.h>

using namespace stagecraft;
using namespace stagecraft::gui;

class TestAppBehaviour : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { test::isolateSettings(); }

    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        m_questions.clear();
        MainWindowOptions options;
        options.offerRecovery = false;
        options.confirmClose = false;
        options.restoreGeometry = false;
        options.autosaveDirectory = m_dir->filePath(QStringLiteral("autosave"));
        options.confirmWork = [this](const QString& question) {
            m_questions << question;
            return m_answer;
        };
        m_window = std::make_unique<MainWindow>(options);
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->flushAnalysis();
    }

    void cleanup() { m_window.reset(); }

    void bigInputIsRefusedOrConfirmedFirst() {
        const AnalysisPtr before = m_window->runner()->latest();
        // The largest micro-batch count the field takes, on every default schedule: tens of
        // millions of ops, more memory than half of any test machine holds... or asked first.
        setInt("parallel.microbatches", 1 << 20);
        m_window->flushAnalysis();
        const QString message = m_window->messageBar()->text();
        const WorkDecision expected =
            judgeWork(estimateWork(m_window->document()->request()), machineBytes());
        QVERIFY(expected.verdict != WorkVerdict::Run);
        if (expected.verdict == WorkVerdict::Refuse) {
            QVERIFY2(message.contains(QStringLiteral("Not simulated")), qPrintable(message));
            QVERIFY(m_questions.isEmpty());
        } else {
            QCOMPARE(m_questions.size(), 1); // asked, declined
            QVERIFY2(m_questions.front().contains(QStringLiteral(" ops")), qPrintable(m_questions.front()));
            QVERIFY(m_questions.front().contains(QStringLiteral("GiB")));
        }
        QCOMPARE(m_window->runner()->latest(), before); // nothing ran; the last chart stays

        // Between the thresholds: asked, with the op count; a yes runs it.
        m_questions.clear();
        m_answer = true;
        setInt("parallel.microbatches", 8);
        m_window->flushAnalysis();
        m_window->document()->setField(QStringLiteral("parallel.pp"), QStringLiteral("4"));
        const std::size_t confirmAt = (kConfirmWorkOps / (4 * 2 * 4)) + 64; // > threshold on 1F1B alone
        setInt("parallel.microbatches", int(confirmAt));
        m_window->flushAnalysis();
        QCOMPARE(m_questions.size(), 1);
        QVERIFY(m_window->runner()->latest() != before);
        m_answer = false;
    }

    void cancelStopsABackgroundSimulation() {
        AnalysisRunner* runner = m_window->runner();
        const AnalysisPtr before = runner->latest();
        runner->setWorkerThreshold(0); // every analysis goes to the worker
        QSignalSpy cancelled(runner, &AnalysisRunner::cancelled);
        // About two million ops: seconds of work, below the confirmation threshold.
        setInt("parallel.microbatches", 1 << 16);
        QVERIFY(estimateWork(m_window->document()->request()).ops < kConfirmWorkOps);
        QSignalSpy progress(runner, &AnalysisRunner::progress);
        QTRY_VERIFY(runner->isBusy());
        auto* cancel = m_window->findChild<QWidget*>(QStringLiteral("cancelAnalysis"));
        QVERIFY(cancel && cancel->isVisible());
        // The status bar shows how far the worker is, in percent of its work.
        QTRY_VERIFY(!progress.isEmpty());
        // The worker starts with the first schedule; by the time the event loop has delivered its
        // reports it may already be on the next one (how far it got depends on the machine).
        QCOMPARE(progress.first().at(1).toString(), QStringLiteral("1f1b"));
        auto* bar = m_window->findChild<QProgressBar*>(QStringLiteral("analysisProgress"));
        QVERIFY(bar && bar->isVisible());
        QCOMPARE(bar->maximum(), 100);
        QCOMPARE(bar->value(), progress.last().at(0).toInt());
        QVERIFY(m_window->statusBar()->grab().save(
            QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/status-progress.png")));
        runner->cancel();
        QCOMPARE(cancelled.count(), 1);
        runner->waitForIdle();
        QCOMPARE(runner->latest(), before); // the cancelled result is dropped
        QVERIFY(m_window->messageBar()->text().contains(QStringLiteral("cancelled")));
        // The next edit runs as usual.
        setInt("parallel.microbatches", 16);
        m_window->flushAnalysis();
        QVERIFY(runner->latest() != before);
        QCOMPARE(runner->latest()->outcomes.front().prediction.schedule.microbatches, 16);
    }

    void numbersAreNeverSilentlyAltered() {
        auto* spin = intField("parallel.microbatches");
        const int before = m_window->document()->project().parallel.microbatches;
        spin->setValue(-5);
        QCOMPARE(spin->value(), -5); // shown as typed
        QCOMPARE(m_window->document()->project().parallel.microbatches, before);
        QString message = m_window->parameterPanel()->messageFor(QStringLiteral("parallel.microbatches"));
        QVERIFY2(message.contains(QStringLiteral("-5")), qPrintable(message));
        QVERIFY(message.contains(QStringLiteral("Micro-batches (m)"))); // the form's words
        spin->setValue(0);
        QCOMPARE(spin->value(), 0);
        message = m_window->parameterPanel()->messageFor(QStringLiteral("parallel.microbatches"));
        QVERIFY2(message.contains(QStringLiteral("= 0")), qPrintable(message));
        QCOMPARE(m_window->document()->project().parallel.microbatches, before);
        // A double below its exclusive minimum: refused with core's message, not clamped.
        auto* dspin = qobject_cast<QDoubleSpinBox*>(
            m_window->parameterPanel()->editorFor(QStringLiteral("cluster.latency_us")));
        QVERIFY(dspin);
        dspin->setValue(-1);
        QCOMPARE(dspin->value(), -1.0);
        QVERIFY(!m_window->parameterPanel()->messageFor(QStringLiteral("cluster.latency_us")).isEmpty());
    }

    void wheelChangesAFieldOnlyWithFocus() {
        auto* spin = intField("model.layers");
        const int before = spin->value();
        m_window->activateWindow();
        QWidget* other = m_window->parameterPanel()->editorFor(QStringLiteral("model.hidden"));
        other->setFocus();
        QVERIFY(!spin->hasFocus());
        wheel(spin);
        QCOMPARE(spin->value(), before);
        QCOMPARE(m_window->document()->project().model.layers, before);
        spin->setFocus();
        QTRY_VERIFY(spin->hasFocus());
        wheel(spin);
        QVERIFY(spin->value() != before);
    }

    void aMessageGoesWithItsCause() {
        // Chunks 5 cannot cut the default 24 layers of interleaved 1F1B at pp 4: refused.
        m_window->document()->setScheduleChecked(QStringLiteral("interleaved"), true);
        setInt("parallel.chunks", 5);
        m_window->flushAnalysis();
        QVERIFY2(!m_window->messageBar()->text().isEmpty(), "no message for chunks 5");
        setInt("parallel.chunks", 2);
        m_window->flushAnalysis();
        QVERIFY2(m_window->messageBar()->text().isEmpty(), qPrintable(m_window->messageBar()->text()));

        // A refused value's message goes when the project is replaced (New).
        intField("parallel.microbatches")->setValue(-5);
        QVERIFY(!m_window->parameterPanel()->messageFor(QStringLiteral("parallel.microbatches")).isEmpty());
        m_window->newProject();
        m_window->flushAnalysis();
        QVERIFY(m_window->parameterPanel()->messageFor(QStringLiteral("parallel.microbatches")).isEmpty());
        QCOMPARE(intField("parallel.microbatches")->value(), defaultProject().parallel.microbatches);
        QVERIFY(m_window->messageBar()->text().isEmpty());
    }

    void theBudgetNeverExceedsTheGpu() {
        ProjectDocument* doc = m_window->document();
        m_window->flushAnalysis();
        const double peak =
            m_window->runner()->latest()->outcomes.front().prediction.report.memory.devices.front().peakBytes;
        const double gib = 1024.0 * 1024 * 1024;
        doc->setField(QStringLiteral("memory.limit_gib"), QString::number(2 * peak / gib, 'g', 12));
        doc->setField(QStringLiteral("cluster.memory_gib"), QString::number(0.5 * peak / gib, 'g', 12));
        m_window->flushAnalysis();
        const auto& memory = m_window->runner()->latest()->outcomes.front().prediction.report.memory;
        QVERIFY(!memory.fits);
        QVERIFY(memory.limitIsGpuMemory);
        const QString fits =
            m_window->metricsPanel()->model()->index(0, MetricsModel::Fits).data().toString();
        QVERIFY2(fits.contains(QStringLiteral("GPU memory")), qPrintable(fits));
    }

    void ignoredCostFieldsAreDisabledWithTheReason() {
        ProjectDocument* doc = m_window->document();
        doc->setField(QStringLiteral("costs.mode"), QStringLiteral("analytic"));
        QWidget* f = m_window->parameterPanel()->editorFor(QStringLiteral("costs.f"));
        QVERIFY(!f->isEnabled());
        QVERIFY2(f->toolTip().contains(QStringLiteral("read only by the manual cost model")),
                 qPrintable(f->toolTip()));
        QVERIFY(m_window->parameterPanel()->editorFor(QStringLiteral("costs.efficiency"))->isEnabled());
        doc->setField(QStringLiteral("costs.mode"), QStringLiteral("manual"));
        QVERIFY(f->isEnabled());
        QVERIFY(!m_window->parameterPanel()->editorFor(QStringLiteral("costs.efficiency"))->isEnabled());
    }

    void labelsAndUndoTextsAreWords() {
        QWidget* pp = m_window->parameterPanel()->editorFor(QStringLiteral("parallel.pp"));
        bool found = false;
        for (QLabel* label : m_window->parameterPanel()->findChildren<QLabel*>())
            if (label->buddy() == pp) found = label->text() == QStringLiteral("Pipeline stages (pp)");
        QVERIFY(found);
        setInt("parallel.pp", 8);
        QCOMPARE(m_window->document()->undoStack()->undoText(),
                 QStringLiteral("Set Pipeline stages (pp) to 8"));
    }

    void everyDocumentedShortcutWorks() {
        QStringList missing;
        const QList<QKeySequence> documented = {
            QKeySequence(QStringLiteral("Ctrl+N")), QKeySequence(QStringLiteral("Ctrl+O")),
            QKeySequence(QStringLiteral("Ctrl+S")), QKeySequence(QStringLiteral("Ctrl+Shift+S")),
            QKeySequence(QStringLiteral("Ctrl+I")), QKeySequence(QStringLiteral("Ctrl+T")),
            QKeySequence(QStringLiteral("Ctrl+E")), QKeySequence(QStringLiteral("Ctrl+Z")),
            QKeySequence(QStringLiteral("Ctrl+0")), QKeySequence(QStringLiteral("F1"))};
        const QList<QAction*> actions = m_window->findChildren<QAction*>();
        for (const QKeySequence& key : documented) {
            bool bound = false;
            for (QAction* a : actions) bound = bound || a->shortcuts().contains(key);
            if (!bound) missing << key.toString();
        }
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QStringLiteral(", "))));
    }

    void theRulerSticksAndEveryOverlayMarkHasAKey() {
        // Many panels in a short window: the axis lies far below the view.
        ProjectDocument* doc = m_window->document();
        for (const char* name : {"gpipe", "1f1b", "zb-h1", "zb-h2", "chimera"})
            doc->setScheduleChecked(QString::fromLatin1(name), true);
        m_window->resize(1400, 560);
        m_window->flushAnalysis();
        GanttView* view = m_window->ganttView();
        view->setShowIdleCauses(true);
        view->setShowCriticalPath(true);
        QApplication::processEvents();
        const QImage image = view->viewport()->grab().toImage();
        image.save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/sticky-ruler-and-key.png"));
        // Bottom strip of the plot: the ruler's white band with its tick labels.
        int white = 0, dark = 0, total = 0;
        for (int y = image.height() - 10; y < image.height(); ++y)
            for (int x = image.width() / 4; x < image.width() - 10; ++x, ++total) {
                const QColor c = image.pixelColor(x, y);
                white += c.red() > 245 && c.green() > 245 && c.blue() > 245;
                dark += c.red() < 90 && c.green() < 90 && c.blue() < 90;
            }
        QVERIFY2(white > total * 6 / 10, qPrintable(QStringLiteral("%1 of %2 white").arg(white).arg(total)));
        QVERIFY(dark > 5);
        // The key in the top-right corner: its frame and a hatched swatch per idle cause.
        int keyFrame = 0;
        for (int x = image.width() / 2; x < image.width(); ++x)
            for (int y = 0; y < 40; ++y) keyFrame += image.pixelColor(x, y) == QColor(0xc8, 0xc8, 0xc8);
        QVERIFY2(keyFrame > 100, qPrintable(QString::number(keyFrame)));
    }

    void anOverlayNamesTheWorstOpsAndAClickShowsOne() {
        Project project = m_window->document()->project();
        Timeline measured = test::measuredTimeline(project, "1f1b", 1.0);
        // One op much slower than predicted: it must head the list and be named the worst.
        std::size_t slow = 0;
        for (std::size_t i = 0; i < measured.events.size(); ++i)
            if (measured.events[i].lane == Lane::Compute && measured.events[i].op.kind == OpKind::B &&
                measured.events[i].device == 1)
                slow = i;
        measured.events[slow].end += 3 * measured.events[slow].duration();
        const QString trace = m_dir->filePath(QStringLiteral("measured.json"));
        writeChromeTrace(measured, trace.toStdString());
        QCOMPARE(m_window->openPath(trace), QString());
        m_window->flushAnalysis();
        const AnalysisPtr result = m_window->runner()->latest();
        QVERIFY(result->overlay);
        OverlayPanel* panel = m_window->overlayPanel();
        const QString slowName =
            QString::fromStdString(opName(measured.events[slow].op, measured.shape.splitBackward));
        QVERIFY2(panel->text().contains(QStringLiteral("Worst op: ") + slowName), qPrintable(panel->text()));
        QTreeWidget* drift = panel->driftList();
        QVERIFY(drift->topLevelItemCount() > 0);
        QCOMPARE(drift->topLevelItem(0)->text(0), slowName);
        QCOMPARE(drift->topLevelItem(0)->text(1), QStringLiteral("D1"));
        QVERIFY(panel->deviceList()->topLevelItemCount() > 0);
        QCOMPARE(panel->deviceList()->topLevelItem(0)->text(0), QStringLiteral("D1")); // worst device first
        // A click selects the op in the chart and brings it into view.
        GanttView* view = m_window->ganttView();
        view->zoomBy(64, 0); // far from the op
        emit drift->itemClicked(drift->topLevelItem(0), 0);
        const auto selection = view->selection();
        QVERIFY(selection);
        QCOMPARE(selection->first, int(result->overlay->outcome));
        const auto& events = result->outcomes[result->overlay->outcome].prediction.timeline.events;
        QCOMPARE(events[std::size_t(selection->second)].op, measured.events[slow].op);
    }

    void aRefusedTraceLeavesTheCheckedSchedulesAlone() {
        const std::vector<std::string> before = m_window->document()->project().schedules;
        QVERIFY(std::find(before.begin(), before.end(), "gpipe") == before.end());
        Project other = m_window->document()->project();
        other.parallel.pp = 2;
        other.parallel.dp = 4;
        const QString wrong = m_dir->filePath(QStringLiteral("gpipe-other.json"));
        writeChromeTrace(test::measuredTimeline(other, "gpipe", 1.0), wrong.toStdString());
        QCOMPARE(m_window->openPath(wrong), QString());
        m_window->flushAnalysis();
        QVERIFY(m_window->messageBar()->text().startsWith(QStringLiteral("Trace refused")));
        QCOMPARE(m_window->document()->project().schedules, before);
    }

    void aSearchedOrderShowsItsBoundInTheMetrics() {
        ProjectDocument* doc = m_window->document();
        doc->setField(QStringLiteral("memory.limit_microbatches"), QStringLiteral("8"));
        doc->setScheduleChecked(QStringLiteral("zb-auto"), true);
        m_window->flushAnalysis();
        const QAbstractItemModel* model = m_window->metricsPanel()->model();
        bool found = false;
        for (int r = 0; r < model->rowCount(); ++r) {
            const QString tip = model->index(r, MetricsModel::Schedule).data(Qt::ToolTipRole).toString();
            if (model->index(r, MetricsModel::Schedule).data(MetricsModel::NameRole).toString() ==
                QStringLiteral("zb-auto")) {
                found = true;
                QVERIFY2(tip.contains(QStringLiteral("lower bound")), qPrintable(tip));
            }
        }
        QVERIFY(found);
    }

    void helpWorksWithoutADisplay() {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(STAGECRAFT_GUI_EXECUTABLE), {QStringLiteral("--help")});
        QVERIFY(process.waitForFinished(20000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 0);
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        QVERIFY2(out.contains(QStringLiteral("--export")), qPrintable(out));
    }

  private:
    static double machineBytes() { return double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE)); }
    QSpinBox* intField(const char* path) {
        auto* spin =
            qobject_cast<QSpinBox*>(m_window->parameterPanel()->editorFor(QString::fromLatin1(path)));
        if (!spin) qFatal("no spin box for %s", path);
        return spin;
    }
    void setInt(const char* path, int value) { intField(path)->setValue(value); }
    static void wheel(QWidget* w) {
        const QPointF pos(w->width() / 2.0, w->height() / 2.0);
        QWheelEvent event(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(w, &event);
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<MainWindow> m_window;
    QStringList m_questions;
    bool m_answer = false;
};

QTEST_MAIN(TestAppBehaviour)
#include "tst_app_behaviour.moc"
