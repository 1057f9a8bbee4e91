// Issue 29, "the app, round three": a chart that is not the form's project never shows as if it
// were (refused edit, broken rule, declined or refused big input, recovery), shipped samples are
// read-only templates, messages read as words (no HTML entities, no internal ids, field labels,
// under the edited field), and the small readings: Parallelism first, the project's name in the
// title, plain numbers in Copy as CSV, the export format kept, Ctrl+E from a spin box.

#include "eval/work_estimate.h"
#include "gui/export_dialog.h"
#include "gui/gantt_view.h"
#include "gui/main_window.h"
#include "gui/models/analysis_runner.h"
#include "gui/models/autosave.h"
#include "gui/models/metrics_model.h"
#include "gui/models/project_document.h"
#include "gui/panels.h"
#include "gui/parameter_panel.h"
#include "gui/search_panel.h"
#include "gui_test_support.h"
#include "project/project_json.h"
#include "search/search.h"

#include <QAction>
#include <cmath>
#include <QApplication>
#include <QChart>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QGroupBox>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolBar>
#include <unistd.h>

using namespace stagecraft;
using namespace stagecraft::gui;

class TestAppTrust : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        test::isolateSettings();
        // Settings of its own: it saves export choices, and CTest runs the GUI suites side by side.
        QCoreApplication::setApplicationName(QStringLiteral("stagecraft-tests-trust"));
    }

    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        m_answer = false;
        m_proposals.clear();
        m_window = makeWindow(m_dir->filePath(QStringLiteral("autosave")), false);
    }

    void cleanup() { m_window.reset(); }

    void aRefusedEditGreysTheChart() {
        QVERIFY(m_window->ganttView()->staleReason().isEmpty());
        QVERIFY(m_window->metricsPanel()->isEnabled());
        intField("parallel.microbatches")->setValue(-5);
        const QString reason = m_window->ganttView()->staleReason();
        QVERIFY2(reason.contains(QStringLiteral("Micro-batches (m)")), qPrintable(reason));
        QVERIFY(!m_window->metricsPanel()->isEnabled());
        QVERIFY(!m_window->memoryPanel()->isEnabled());
        saveShot(QStringLiteral("stale-refused-edit.png"));
        intField("parallel.microbatches")->setValue(12);
        m_window->flushAnalysis();
        QVERIFY2(m_window->ganttView()->staleReason().isEmpty(),
                 qPrintable(m_window->ganttView()->staleReason()));
        QVERIFY(m_window->metricsPanel()->isEnabled());
    }

    void aBrokenRuleGreysTheChart() {
        intField("model.heads")->setValue(12); // 2048 hidden: heads must divide it
        m_window->flushAnalysis();
        QVERIFY(!m_window->ganttView()->staleReason().isEmpty());
        QVERIFY(!m_window->metricsPanel()->isEnabled());
        intField("model.heads")->setValue(16);
        m_window->flushAnalysis();
        QVERIFY(m_window->ganttView()->staleReason().isEmpty());
    }

    void aDeclinedBigInputGreysTheChart() {
        const int m = confirmMicrobatches();
        if (m == 0) QSKIP("this machine refuses what others ask about");
        const AnalysisPtr before = m_window->runner()->latest();
        intField("parallel.microbatches")->setValue(m);
        m_window->flushAnalysis();
        QCOMPARE(m_window->runner()->latest(), before); // declined: nothing ran
        const QString reason = m_window->ganttView()->staleReason();
        QVERIFY2(reason.contains(QStringLiteral("declined")), qPrintable(reason));
        QVERIFY(!m_window->metricsPanel()->isEnabled());
        saveShot(QStringLiteral("stale-declined.png"));
        intField("parallel.microbatches")->setValue(16);
        m_window->flushAnalysis();
        QVERIFY(m_window->ganttView()->staleReason().isEmpty());
        QVERIFY(m_window->metricsPanel()->isEnabled());
    }

    void aCancelledSimulationGreysTheChart() {
        AnalysisRunner* runner = m_window->runner();
        runner->setWorkerThreshold(0);                        // every analysis goes to the worker
        intField("parallel.microbatches")->setValue(1 << 16); // seconds of work
        QTRY_VERIFY(runner->isBusy());
        runner->cancel();
        QTRY_VERIFY(!runner->isBusy());
        const QString reason = m_window->ganttView()->staleReason();
        QVERIFY2(reason.contains(QStringLiteral("cancelled")), qPrintable(reason));
        QVERIFY(!m_window->metricsPanel()->isEnabled());
        intField("parallel.microbatches")->setValue(16);
        m_window->flushAnalysis();
        QVERIFY(m_window->ganttView()->staleReason().isEmpty());
    }

    void aRecoveredProjectKeepsItsNameAndIsNeverShownUnderAnotherChart() {
        // A project file, and a crashed session's autosave of it with a big edit.
        Project saved = readProject(STAGECRAFT_SOURCE_DIR "/samples/zb-1.5b.stagecraft.json");
        const QString file = m_dir->filePath(QStringLiteral("mine.stagecraft.json"));
        writeProject(saved, file.toStdString());
        m_window->document()->reset(saved, file);
        const int m = confirmMicrobatches();
        m_window.reset();
        if (m == 0) QSKIP("this machine refuses what others ask about");
        Project edited = saved;
        edited.parallel.pp = 4;
        edited.parallel.microbatches = m;
        const QString autosaves = m_dir->filePath(QStringLiteral("crashed"));
        QDir().mkpath(autosaves);
        const QString orphan = QDir(autosaves).filePath(QStringLiteral("session-dead.stagecraft.json"));
        writeProject(edited, orphan.toStdString());
        QFile origin(Autosave::originFileOf(orphan));
        QVERIFY(origin.open(QIODevice::WriteOnly));
        origin.write(file.toUtf8());
        origin.close();

        m_window = makeWindow(autosaves, true);
        QTRY_COMPARE(m_recoveryQuestions.size(), 1);
        QVERIFY2(m_recoveryQuestions.front().contains(QStringLiteral("mine.stagecraft.json")),
                 qPrintable(m_recoveryQuestions.front()));
        m_window->flushAnalysis();
        QCOMPARE(m_window->document()->filePath(), file);
        QVERIFY2(m_window->windowTitle().startsWith(QStringLiteral("mine.stagecraft.json*")),
                 qPrintable(m_window->windowTitle()));
        QCOMPARE(intField("parallel.microbatches")->value(), m);
        // The big input was declined: the chart (the default project's) is greyed out.
        QVERIFY2(!m_window->ganttView()->staleReason().isEmpty(),
                 "a chart of another project shown as the form's");
        QVERIFY(!m_window->metricsPanel()->isEnabled());
        // Undo goes back to the file as saved.
        m_window->document()->undoStack()->undo();
        QCOMPARE(m_window->document()->project(), saved);

        // An autosave records the file its project came from.
        Autosave autosave(m_window->document(), m_dir->filePath(QStringLiteral("again")));
        m_window->document()->setField(QStringLiteral("parallel.microbatches"), QStringLiteral("24"));
        autosave.saveNow();
        QCOMPARE(Autosave::originOf(autosave.sessionFile()), file);
    }

    void aShippedSampleIsAReadOnlyTemplate() {
        // A copy of the samples folder, so that a failure cannot touch the real one.
        const QString samples = m_dir->filePath(QStringLiteral("samples"));
        QDir().mkpath(samples);
        for (const char* name : {"README.md", "zb-1.5b.stagecraft.json"})
            QVERIFY(QFile::copy(QStringLiteral(STAGECRAFT_SOURCE_DIR "/samples/") + QLatin1String(name),
                                QDir(samples).filePath(QLatin1String(name))));
        const QString sample = QDir(samples).filePath(QStringLiteral("zb-1.5b.stagecraft.json"));
        const QByteArray shipped = readAll(sample);
        QVERIFY(m_window->openPath(sample).isEmpty());
        m_window->document()->setField(QStringLiteral("parallel.microbatches"), QStringLiteral("48"));
        m_savePath = m_dir->filePath(QStringLiteral("my-copy.stagecraft.json"));
        QVERIFY(m_window->save());
        QCOMPARE(m_proposals.size(), 1); // Save asked where to write...
        QVERIFY2(!m_proposals.front().startsWith(samples), qPrintable(m_proposals.front()));
        QVERIFY(m_proposals.front().endsWith(QStringLiteral("zb-1.5b.stagecraft.json")));
        QCOMPARE(readAll(sample), shipped); // ...and the sample is as shipped
        QCOMPARE(m_window->document()->filePath(), m_savePath);
        // The copy is the user's own file: the next Save writes it without asking.
        m_window->document()->setField(QStringLiteral("parallel.microbatches"), QStringLiteral("64"));
        QVERIFY(m_window->save());
        QCOMPARE(m_proposals.size(), 1);
        QVERIFY(!isShippedSample(m_savePath));
        QVERIFY(isShippedSample(QStringLiteral(STAGECRAFT_SOURCE_DIR "/samples/zb-6.2b.stagecraft.json")));
    }

    void messagesReadAsWords() {
        // An incomplete project: core's message with its quotes, not "&quot;".
        const QString incomplete = m_dir->filePath(QStringLiteral("incomplete.stagecraft.json"));
        writeText(incomplete, "{\"stagecraft\": 1, \"name\": \"half\", \"model\": {}}");
        QVERIFY(!m_window->openPath(incomplete).isEmpty());
        QString shown = m_window->messageBar()->text();
        QVERIFY2(!shown.contains(QStringLiteral("&quot;")) && !shown.contains(QStringLiteral("&amp;")),
                 qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("\"cluster\"")), qPrintable(shown));
        // A picture is not a schedule: said in words, without core's internal id.
        const QString png = m_dir->filePath(QStringLiteral("chart.png"));
        writeText(png, "\x89PNG\r\n\x1a\n0000");
        QVERIFY(!m_window->openPath(png).isEmpty());
        shown = m_window->messageBar()->text();
        QVERIFY2(!shown.contains(QStringLiteral("[schedule_file.")) && !shown.contains(QStringLiteral("].")),
                 qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("chart.png")), qPrintable(shown));
        qInfo("%s", qPrintable(shown));
    }

    void aRuleBetweenFieldsShowsUnderTheEditedFieldInItsWords() {
        // The default cluster has 8 GPUs: pp 16 needs 16 × dp × tp of them (a rule on dp too).
        intField("parallel.pp")->setValue(16);
        m_window->flushAnalysis();
        const QString underPp = m_window->parameterPanel()->messageFor(QStringLiteral("parallel.pp"));
        QVERIFY2(underPp.contains(QStringLiteral("Pipeline stages (pp) × Data parallel (dp)")),
                 qPrintable(underPp));
        QVERIFY2(!underPp.contains(QStringLiteral("parallel.")) &&
                     !underPp.contains(QStringLiteral("cluster.")),
                 qPrintable(underPp));
        QVERIFY(m_window->parameterPanel()->messageFor(QStringLiteral("parallel.dp")).isEmpty());
        QVERIFY(!m_window->messageBar()->text().contains(QStringLiteral("parallel.pp")));
        // A refused value reads in the form's words too.
        intField("parallel.microbatches")->setValue(-5);
        const QString refused =
            m_window->parameterPanel()->messageFor(QStringLiteral("parallel.microbatches"));
        QVERIFY2(refused.contains(QStringLiteral("Micro-batches (m)")) &&
                     refused.contains(QStringLiteral("-5")),
                 qPrintable(refused));
    }

    void parallelismComesFirst() {
        auto* parallel =
            m_window->parameterPanel()->findChild<QGroupBox*>(QStringLiteral("section_parallel"));
        QVERIFY(parallel);
        for (QGroupBox* box : m_window->parameterPanel()->findChildren<QGroupBox*>())
            if (box != parallel) QVERIFY2(parallel->y() < box->y(), qPrintable(box->objectName()));
    }

    void theTitleNamesTheProject() {
        const QString name = QString::fromStdString(m_window->document()->project().name);
        QVERIFY(!name.isEmpty());
        QVERIFY2(m_window->windowTitle().contains(name), qPrintable(m_window->windowTitle()));
        QVERIFY(!m_window->windowTitle().contains(QStringLiteral("Untitled")));
        QVERIFY(m_window->openPath(QStringLiteral(STAGECRAFT_SOURCE_DIR "/samples/zb-6.2b.stagecraft.json"))
                    .isEmpty());
        const QString title = m_window->windowTitle();
        QVERIFY2(title.startsWith(QStringLiteral("zb-6.2b.stagecraft.json")) &&
                     title.contains(QString::fromStdString(m_window->document()->project().name)),
                 qPrintable(title));
    }

    void copyAsCsvCopiesPlainNumbers() {
        m_window->flushAnalysis();
        const QStringList lines =
            m_window->metricsPanel()->csv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY(lines.size() >= 2);
        QCOMPARE(lines[0],
                 QStringLiteral("schedule,iteration_us,bubble_percent,span_bubble_percent,samples_per_s,"
                                "mfu_percent,peak_memory_gib,fits_limit"));
        const QStringList cells = lines[1].split(QLatin1Char(','));
        QCOMPARE(cells.size(), 8);
        // Every number is plain: it parses whole (no unit, no thousands separator) and is a real value.
        for (int c : {1, 2, 3, 4, 5, 6}) {
            bool ok = false;
            const double value = cells[c].toDouble(&ok);
            QVERIFY2(ok && std::isfinite(value) && value >= 0, qPrintable(lines[1]));
        }
        const AnalysisPtr result = m_window->runner()->latest();
        const double iteration = cells[1].toDouble();
        bool same = false;
        for (const ScheduleOutcome& o : result->outcomes)
            same = same || std::abs(o.prediction.report.iterationUs - iteration) <= 1e-6 * iteration;
        QVERIFY(same);
    }

    void theExportDialogKeepsItsFormat() {
        {
            ExportDialog dialog(m_window->chartSettings(), m_window.get());
            auto* format = dialog.findChild<QComboBox*>();
            QVERIFY(format);
            format->setCurrentIndex(format->findText(QStringLiteral("PNG (image)")));
            dialog.setPath(m_dir->filePath(QStringLiteral("figure3.png")));
            dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
        }
        ExportDialog again(m_window->chartSettings(), m_window.get());
        QCOMPARE(again.request().file.format, render::ExportFormat::Png);
        QVERIFY2(again.request().path.endsWith(QStringLiteral("figure3.png")),
                 qPrintable(again.request().path));
    }

    void ctrlEExportsFromASpinBox() {
        auto* exportAction = m_window->findChild<QAction*>(QStringLiteral("exportAction"));
        QVERIFY(exportAction);
        QSignalSpy triggered(exportAction, &QAction::triggered);
        QSpinBox* spin = intField("parallel.microbatches");
        m_window->activateWindow();
        spin->setFocus();
        QTRY_VERIFY(spin->hasFocus());
        // The dialog it opens is closed again as soon as it shows.
        QTimer closer;
        connect(&closer, &QTimer::timeout, [] {
            if (QWidget* modal = QApplication::activeModalWidget()) modal->close();
        });
        closer.start(20);
        QTest::keyClick(spin, Qt::Key_E, Qt::ControlModifier);
        QCOMPARE(triggered.size(), 1);
    }

    void exportIsOnTheToolBarAt1360Pixels() {
        m_window->resize(1360, 860);
        QTest::qWait(50);
        auto* exportAction = m_window->findChild<QAction*>(QStringLiteral("exportAction"));
        auto* bar = m_window->findChild<QToolBar*>(QStringLiteral("mainToolBar"));
        QVERIFY(exportAction && bar);
        QWidget* button = bar->widgetForAction(exportAction);
        QVERIFY(button);
        QTRY_VERIFY(button->isVisible());
        QVERIFY(bar->rect().contains(button->geometry()));
    }

    void aSearchResultOpensWithItsNumbersAndNamesWhatDoesNotFit() {
        QCOMPARE(
            m_window->openPath(QStringLiteral(STAGECRAFT_SOURCE_DIR "/samples/bfpp-6.6b.stagecraft.json")),
            QString());
        SearchPanel* panel = m_window->searchPanel();
        panel->batchField()->setText(QStringLiteral("1"));
        panel->schedulesField()->setText(QStringLiteral("1f1b,breadth-first"));
        QSignalSpy done(panel, &SearchPanel::finished);
        panel->start();
        QVERIFY(done.count() == 1 || done.wait(120000));
        QVERIFY(panel->table()->rowCount() > 0);
        // The configuration opened in the project gives the numbers its row gave.
        const std::size_t index = panel->table()->item(0, 0)->data(Qt::UserRole).toULongLong();
        const ConfigResult found = panel->result()->results[index];
        panel->openResult(index);
        m_window->flushAnalysis();
        bool seen = false;
        for (const ScheduleOutcome& o : m_window->runner()->latest()->outcomes) {
            if (o.name != found.config.schedule) continue;
            seen = true;
            // The same configuration gives the same numbers, or the row names the difference.
            const QString opened = QString::number(100 * o.prediction.report.mfu, 'f', 1);
            const QTableWidgetItem* cell = panel->table()->item(0, 2);
            if (opened != QString::number(100 * found.mfu, 'f', 1))
                QVERIFY2(cell->toolTip().contains(QStringLiteral("MFU %1 %").arg(opened)) &&
                             cell->toolTip().contains(QStringLiteral("all-gathers")),
                         qPrintable(cell->toolTip()));
            QCOMPARE(QString::number(100 * found.predictedMfu, 'f', 1), opened);
            // ... and the window says so once it is opened.
            if (opened != QString::number(100 * found.mfu, 'f', 1))
                QVERIFY2(
                    m_window->messageBar()->text().contains(QStringLiteral("shows MFU %1 %").arg(opened)),
                    qPrintable(m_window->messageBar()->text()));
        }
        QVERIFY(seen);

        // Nothing fits in 1 GiB: the panel says so for each schedule.
        m_window->document()->setField(QStringLiteral("memory.limit_gib"), QStringLiteral("1"));
        panel->start();
        QVERIFY(done.count() == 2 || done.wait(120000));
        QVERIFY2(panel->statusText().contains(QStringLiteral("no configuration of 1f1b, breadth-first fit")),
                 qPrintable(panel->statusText()));
    }

    void theMemoryLegendNamesEightDevices() {
        m_window->document()->setField(QStringLiteral("parallel.dp"), QStringLiteral("1"));
        m_window->document()->setField(QStringLiteral("parallel.pp"), QStringLiteral("8"));
        m_window->flushAnalysis();
        QVERIFY2(m_window->ganttView()->staleReason().isEmpty(),
                 qPrintable(m_window->ganttView()->staleReason()));
        QStringList shown;
        for (QLegendMarker* marker : m_window->memoryPanel()->chart()->legend()->markers())
            if (marker->isVisible()) shown << marker->label();
        for (int d = 0; d < 8; ++d)
            QVERIFY2(shown.contains(QStringLiteral("D%1").arg(d)), qPrintable(shown.join(QLatin1Char(' '))));
    }

    void theOverlayKeyCoversNoBars() {
        GanttView* view = m_window->ganttView();
        view->setShowCriticalPath(true);
        view->setShowIdleCauses(true);
        view->fit();
        view->grab(); // paints
        const QRect key = view->overlayLegendRect();
        QVERIFY(!key.isEmpty());
        const double firstRow = view->fromScene(QPointF(0, view->frame().rows.front().y)).y();
        QVERIFY2(key.bottom() <= firstRow,
                 qPrintable(QStringLiteral("%1 > %2").arg(key.bottom()).arg(firstRow)));
        QVERIFY(view->grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/overlay-key.png")));
    }

    void theExportDialogPreviewsAChosenSubset() {
        m_window->flushAnalysis();
        QSize previewSize;
        int listed = 0;
        ExportRequest chosen;
        QTimer::singleShot(0, [&] {
            auto* dialog = qobject_cast<ExportDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            previewSize = dialog->preview().size();
            auto* list = dialog->findChild<QListWidget*>(QStringLiteral("exportSchedules"));
            listed = list ? list->count() : 0;
            for (int i = 1; list && i < list->count(); ++i) list->item(i)->setCheckState(Qt::Unchecked);
            chosen = dialog->request();
            dialog->grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/export-dialog.png"));
            dialog->reject();
        });
        m_window->exportChart();
        QCOMPARE(listed, int(m_window->runner()->latest()->outcomes.size()));
        QVERIFY(listed >= 2);
        QCOMPARE(previewSize.width(), 420); // the figure, drawn at the preview's width
        QVERIFY(previewSize.height() > 100);
        QVERIFY(!chosen.allSchedules);
        QCOMPARE(chosen.schedules,
                 QStringList{QString::fromStdString(m_window->runner()->latest()->outcomes.front().name)});
        // The export draws that subset only.
        chosen.path = m_dir->filePath(QStringLiteral("subset.svg"));
        chosen.file.format = render::ExportFormat::Svg;
        QCOMPARE(m_window->exportTo(chosen), QString());
        const QByteArray svg = readAll(chosen.path);
        const auto& outcomes = m_window->runner()->latest()->outcomes;
        QVERIFY(svg.contains(QString::fromStdString(outcomes.front().title).toHtmlEscaped().toUtf8()));
        for (std::size_t i = 1; i < outcomes.size(); ++i)
            QVERIFY2(!svg.contains(QByteArray::fromStdString(outcomes[i].title)), outcomes[i].title.c_str());
    }

    void anExportOfATimeRange() {
        m_window->flushAnalysis();
        double makespan = 0;
        for (const ScheduleOutcome& o : m_window->runner()->latest()->outcomes)
            makespan = std::max(makespan, o.prediction.timeline.makespan());
        ExportRequest whole;
        whole.file.format = render::ExportFormat::Svg;
        whole.path = m_dir->filePath(QStringLiteral("whole.svg"));
        ExportRequest range = whole;
        range.path = m_dir->filePath(QStringLiteral("range.svg"));
        range.chart.timeStart = makespan * 0.25;
        range.chart.timeEnd = makespan * 0.5;
        QCOMPARE(m_window->exportTo(whole), QString());
        QCOMPARE(m_window->exportTo(range), QString());
        const int wholeRects = int(readAll(whole.path).count("<rect")),
                  rangeRects = int(readAll(range.path).count("<rect"));
        QVERIFY2(rangeRects < wholeRects * 3 / 4,
                 qPrintable(QStringLiteral("%1 of %2").arg(rangeRects).arg(wholeRects)));
        ExportRequest paper = range; // kept in the test output to look at
        paper.path = QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/export-time-range.png");
        paper.file.format = render::ExportFormat::Png;
        paper.file.dpi = 150;
        QCOMPARE(m_window->exportTo(paper), QString());
        // A range that ends before it starts is refused with its reason.
        range.chart.timeStart = makespan * 0.5;
        range.chart.timeEnd = makespan * 0.25;
        QVERIFY(m_window->exportTo(range).contains(QStringLiteral("the start must be before the end")));
        // The dialog has the range.
        ExportDialog dialog(m_window->chartSettings(), m_window.get());
        auto* from = dialog.findChild<QDoubleSpinBox*>(QStringLiteral("exportFrom"));
        auto* to = dialog.findChild<QDoubleSpinBox*>(QStringLiteral("exportTo"));
        QVERIFY(from && to);
        from->setValue(100);
        to->setValue(200);
        QCOMPARE(dialog.request().chart.timeStart, 100.0);
        QCOMPARE(dialog.request().chart.timeEnd, 200.0);
    }

    void theSearchDockHasRoomWhenItComesToTheFront() {
        m_window->resize(1600, 1000);
        QTest::qWait(20);
        auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("searchDock"));
        QVERIFY(dock);
        dock->show();
        dock->raise();
        // By default it shares the bottom right with Memory: 420 x 230 px.
        QTRY_VERIFY2(dock->width() >= 1600 * 45 / 100 && dock->height() >= 1000 * 4 / 10,
                     qPrintable(QStringLiteral("%1 x %2").arg(dock->width()).arg(dock->height())));
        QVERIFY(m_window->grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/search-dock.png")));
    }

  private:
    std::unique_ptr<MainWindow> makeWindow(const QString& autosaveDir, bool recovery) {
        m_recoveryQuestions.clear();
        MainWindowOptions options;
        options.offerRecovery = recovery;
        options.confirmClose = false;
        options.restoreGeometry = false;
        options.autosaveDirectory = autosaveDir;
        options.confirmWork = [this](const QString&) { return m_answer; };
        options.confirmRecovery = [this](const QString& question) {
            m_recoveryQuestions << question;
            return true;
        };
        options.chooseSavePath = [this](const QString& proposed) {
            m_proposals << proposed;
            return m_savePath;
        };
        auto window = std::make_unique<MainWindow>(options);
        window->resize(1400, 900);
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get())) qFatal("window not exposed");
        window->flushAnalysis();
        return window;
    }

    /// Micro-batches at pp 4 that the big-input guard asks about on this machine (0: it refuses).
    int confirmMicrobatches() {
        m_window->document()->setField(QStringLiteral("parallel.pp"), QStringLiteral("4"));
        const int m = int(kConfirmWorkOps / (4 * 2 * 4)) + 64;
        AnalysisRequest request = m_window->document()->request();
        request.project.parallel.microbatches = m;
        const double memory = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
        return judgeWork(estimateWork(request), memory).verdict == WorkVerdict::Confirm ? m : 0;
    }

    QSpinBox* intField(const char* path) {
        auto* spin =
            qobject_cast<QSpinBox*>(m_window->parameterPanel()->editorFor(QString::fromLatin1(path)));
        if (!spin) qFatal("no spin box for %s", path);
        return spin;
    }
    void saveShot(const QString& name) {
        m_window->grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/") + name);
    }
    static QByteArray readAll(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
    static void writeText(const QString& path, const QByteArray& text) {
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
        f.write(text);
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<MainWindow> m_window;
    bool m_answer = false;
    QStringList m_recoveryQuestions;
    QStringList m_proposals;
    QString m_savePath;
};

QTEST_MAIN(TestAppTrust)
#include "tst_app_trust.moc"
