// Calibrate once, choose a schedule, in the window: a torch run of another pipeline than the
// project's is refused with "Apply the trace's shape"; after File > Calibrate from Trace every
// schedule the project's shape allows stays on the chart, timed as torch runs it by the run's
// runtime fit (Parameters > Timing; Use the Cost Model drops it); Save then writes a new file,
// never the sample the project came from.

#include "eval/evaluation.h"
#include "gui/gantt_view.h"
#include "gui/main_window.h"
#include "gui/models/constants.h"
#include "gui/models/project_document.h"
#include "gui/panels.h"
#include "gui_test_support.h"
#include "project/project_json.h"

#include <QApplication>
#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QMimeData>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QTreeWidget>
#include <QUndoStack>
#include <algorithm>

using namespace stagecraft;
using namespace stagecraft::gui;

namespace {

QByteArray contents(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void drop(QWidget* window, const QStringList& paths) {
    QMimeData mime;
    QList<QUrl> urls;
    for (const QString& p : paths) urls << QUrl::fromLocalFile(p);
    mime.setUrls(urls);
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window, &enter);
    QDropEvent event(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window, &event);
}

/// The tiny runtime project as the host runs were recorded (tests/data/host-runs), with `comm`
/// µs per transfer and `schedules`.
Project hostRunProject(int comm, std::vector<std::string> schedules) {
    Project project = readProject(STAGECRAFT_SOURCE_DIR "/tests/data/runtime/tiny.stagecraft.json");
    for (const char* set : {"parallel.pp=2", "costs.mode=manual", "costs.f=4000", "costs.b=4000",
                            "costs.w=4000", "model.hidden=1024", "model.seq_len=1024"})
        applyProjectOverride(project, set);
    project.costs.comm = comm;
    project.schedules = std::move(schedules);
    return project;
}

/// Shows `window` with the project `file` analysed; false (the refusal on the test's log) when it
/// does not open.
bool showProject(MainWindow& window, const QString& file) {
    window.resize(1400, 1000);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window)) return false;
    if (const QString refused = window.openPath(file); !refused.isEmpty()) {
        qWarning("%s", qPrintable(refused));
        return false;
    }
    window.flushAnalysis();
    return true;
}

} // namespace

class TestCalibrateWindow : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { test::isolateSettings(); }

    void calibratingATorchRunKeepsEveryScheduleAndTheSample() {
        QTemporaryDir dir;
        // A shipped sample (8 devices, 30 layers), copied so that a broken Save could not harm it.
        const QString sample = dir.filePath(QStringLiteral("zb-6.2b.stagecraft.json"));
        QVERIFY(
            QFile::copy(QStringLiteral(STAGECRAFT_SOURCE_DIR "/samples/zb-6.2b.stagecraft.json"), sample));
        const QByteArray original = contents(sample);

        QString proposed;
        MainWindowOptions options = test::quietWindowOptions(dir);
        const QString saved = dir.filePath(QStringLiteral("mine.stagecraft.json"));
        options.chooseSavePath = [&](const QString& path) {
            proposed = path;
            return saved;
        };
        MainWindow window(options);
        window.resize(1400, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.openPath(sample), QString());
        window.flushAnalysis();
        const std::vector<std::string> listed = window.document()->project().schedules;

        // torch's Interleaved1F1B on 2 ranks, 4 micro-batches, 2 stages per rank: not the sample's
        // pipeline. Both rank files dropped together are one run; it is refused with the offer.
        const QString traces = QStringLiteral(STAGECRAFT_SOURCE_DIR "/tests/data/torch-traces/");
        drop(&window, {traces + QStringLiteral("Interleaved1F1B_pp2_m4_rank0.json"),
                       traces + QStringLiteral("Interleaved1F1B_pp2_m4_rank1.json")});
        window.flushAnalysis();
        QVERIFY2(window.messageBar()->text().startsWith(QStringLiteral("Trace refused")),
                 qPrintable(window.messageBar()->text()));
        QPushButton* apply = window.messageBar()->actionButton();
        QVERIFY(apply->isVisible());
        QCOMPARE(apply->text(), QStringLiteral("Apply the trace's shape"));
        QVERIFY(window.grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/trace-of-another-shape.png")));
        apply->click();
        window.flushAnalysis();
        const Project shaped = window.document()->project();
        QCOMPARE(shaped.parallel.pp, 2);
        QCOMPARE(shaped.parallel.microbatches, 4);
        QCOMPARE(shaped.parallel.chunks, 2);
        QCOMPARE(shaped.schedules, listed); // interleaved was listed already
        QVERIFY(window.runner()->latest()->overlay);

        window.calibrate();
        window.flushAnalysis();
        const Project& calibrated = window.document()->project();
        QCOMPARE(calibrated.costs.mode, CostMode::Manual);
        QCOMPARE(int(calibrated.costs.layers.size()), 4);
        QCOMPARE(calibrated.name, shaped.name);
        QVERIFY(calibrated.model == shaped.model);
        QVERIFY(calibrated.memory == shaped.memory);
        QVERIFY2(window.messageBar()->text().contains(QStringLiteral("B = 50% and W = 50%")),
                 qPrintable(window.messageBar()->text()));
        // A torch run is also fitted with the runtime model: the project keeps it, the message and
        // the Parameters' Timing row say that every schedule is timed as torch runs it, and the
        // cost fields it makes unused are disabled.
        QVERIFY(calibrated.runtimeFit.has_value());
        QVERIFY2(window.messageBar()->text().contains(QStringLiteral("timed as torch runs it")),
                 qPrintable(window.messageBar()->text()));
        auto* timing = window.findChild<QWidget*>(QString::fromLatin1(constants::kRuntimeFitRow));
        auto* timingText = window.findChild<QLabel*>(QString::fromLatin1(constants::kRuntimeFitText));
        QVERIFY(timing && timingText);
        QVERIFY(timing->isVisibleTo(&window));
        QVERIFY2(timingText->text().contains(QStringLiteral("torch-gloo runtime model fitted to")),
                 qPrintable(timingText->text()));
        // What decided the fitted run's makespan, measured and replayed, is one hover away.
        QVERIFY2(
            timingText->toolTip().startsWith(QStringLiteral("<b>What decided the fitted run's makespan</b>")),
            qPrintable(timingText->toolTip()));
        QVERIFY2(timingText->toolTip().contains(QStringLiteral("<tr><td>transfers (")) &&
                     timingText->toolTip().contains(QStringLiteral(" hops)</td>")),
                 qPrintable(timingText->toolTip()));
        // And the fit's notes: the rule that split the run's whole backward, among them.
        QVERIFY2(
            timingText->toolTip().contains(QStringLiteral("<b>The fit's notes</b>")) &&
                timingText->toolTip().contains(QStringLiteral("<li>the run does not split the backward")),
            qPrintable(timingText->toolTip()));
        QToolTip::showText(timingText->mapToGlobal(QPoint(10, 10)), timingText->toolTip(), timingText);
        QTest::qWait(100);
        const QWidgetList tops = QApplication::topLevelWidgets();
        const auto tip = std::find_if(tops.begin(), tops.end(),
                                      [](QWidget* w) { return w->inherits("QTipLabel") && w->isVisible(); });
        QVERIFY(tip != tops.end());
        QVERIFY(
            (*tip)->grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/calibrated-timing-tooltip.png")));
        QToolTip::hideText();
        QTest::qWait(100); // the wrapped sentence takes its height once laid out
        QVERIFY(timing->parentWidget()->grab().save(
            QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/calibrated-timing-row.png")));
        auto* comm = window.findChild<QWidget*>(QStringLiteral("field:costs.comm"));
        QVERIFY(comm);
        QVERIFY(!comm->isEnabled());
        for (const ScheduleOutcome& o : window.runner()->latest()->outcomes)
            QVERIFY2(o.prediction.report.notes.find("timed as torch-gloo") != std::string::npos,
                     o.name.c_str());

        // Every listed schedule is still drawn: 1f1b, interleaved, zb-h1, zb-h2, zb-v.
        const AnalysisPtr result = window.runner()->latest();
        for (const ScheduleRefusal& r : result->refusals)
            qWarning("%s: %s", r.name.c_str(), r.message.c_str());
        QVERIFY(result->refusals.empty());
        QCOMPARE(result->outcomes.size(), listed.size());
        QVERIFY(result->overlay); // the run still matches its schedule, now with measured costs
        QVERIFY(window.grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/calibrated-torch-run.png")));

        // And so is every registered schedule whose rules the shape meets (30 layers do not
        // split into BitPipe's half stages of 15: that one is refused for the layers alone).
        Project every = calibrated;
        every.schedules.clear();
        for (const GeneratorInfo& info : generators()) every.schedules.emplace_back(info.name);
        window.document()->applyProject(every, QStringLiteral("every schedule"));
        window.flushAnalysis();
        const AnalysisPtr all = window.runner()->latest();
        for (const ScheduleRefusal& r : all->refusals) {
            QVERIFY2(r.stage != RefusalStage::Evaluation,
                     qPrintable(QString::fromStdString(r.name + ": " + r.message)));
        }
        QCOMPARE(all->outcomes.size() + all->refusals.size(), generators().size());
        QVERIFY(all->outcomes.size() >= generators().size() - 1);
        window.document()->undoStack()->undo();
        window.flushAnalysis();

        // Use the Cost Model drops the fit (one undoable step): the list scheduler times every
        // schedule with the layer costs the calibration wrote.
        auto* drop = window.findChild<QPushButton*>(QString::fromLatin1(constants::kDropRuntimeFitButton));
        QVERIFY(drop);
        drop->click();
        window.flushAnalysis();
        QVERIFY(!window.document()->project().runtimeFit.has_value());
        QVERIFY(!timing->isVisibleTo(&window));
        QVERIFY(comm->isEnabled());
        QCOMPARE(window.document()->project().costs.layers, calibrated.costs.layers);
        for (const ScheduleOutcome& o : window.runner()->latest()->outcomes)
            QVERIFY(o.prediction.report.notes.find("timed as torch-gloo") == std::string::npos);
        window.document()->undoStack()->undo();
        window.flushAnalysis();
        QVERIFY(window.document()->project().runtimeFit.has_value());

        // Save proposes a new file beside the sample and leaves the sample as it was.
        QVERIFY(window.save());
        QCOMPARE(proposed, dir.filePath(QStringLiteral("zb-6.2b-calibrated.stagecraft.json")));
        QCOMPARE(contents(sample), original);
        QCOMPARE(readProject(saved.toStdString()).costs.layers, calibrated.costs.layers);
        // Once saved under its own name, Save writes there without asking.
        proposed.clear();
        QVERIFY(window.save());
        QVERIFY(proposed.isEmpty());
    }

    void calibratingADualPipeVRunFitsItsOverlappedHalves() {
        // torch's DualPipeV overlaps a forward and a whole backward in one action; its profiler
        // records the CPU ops inside, so the halves are timed apart and the runtime model is
        // fitted to the run like any other class's.
        QTemporaryDir dir;
        const QString sample = dir.filePath(QStringLiteral("zb-6.2b.stagecraft.json"));
        QVERIFY(
            QFile::copy(QStringLiteral(STAGECRAFT_SOURCE_DIR "/samples/zb-6.2b.stagecraft.json"), sample));
        MainWindow window(test::quietWindowOptions(dir));
        QVERIFY(showProject(window, sample));
        const QString run = QStringLiteral(STAGECRAFT_TORCH_RUNS_DIR "/pp2_h512/DualPipeV_pp2_v2_m8_h512");
        drop(&window, {run + QStringLiteral("_rank0.json"), run + QStringLiteral("_rank1.json")});
        window.flushAnalysis();
        QPushButton* apply = window.messageBar()->actionButton();
        QVERIFY2(apply && apply->isVisible(), qPrintable(window.messageBar()->text()));
        apply->click();
        window.flushAnalysis();
        QVERIFY2(window.runner()->latest()->overlay, qPrintable(window.messageBar()->text()));
        const auto& schedules = window.document()->project().schedules;
        QVERIFY(std::find(schedules.begin(), schedules.end(), "dualpipev") != schedules.end());

        window.calibrate();
        window.flushAnalysis();
        const Project& calibrated = window.document()->project();
        QVERIFY2(calibrated.runtimeFit.has_value(), qPrintable(window.messageBar()->text()));
        QVERIFY2(window.messageBar()->text().contains(QStringLiteral("timed as torch runs it")),
                 qPrintable(window.messageBar()->text()));
        // The whole backwards the run measured are kept, not made of I + W.
        const std::vector<std::string>& notes = calibrated.runtimeFit->notes;
        QVERIFY(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
            return n.find("whole backwards as the run measured them") != std::string::npos;
        }));
        const AnalysisPtr result = window.runner()->latest();
        for (const ScheduleRefusal& r : result->refusals)
            qWarning("%s: %s", r.name.c_str(), r.message.c_str());
        QVERIFY(result->refusals.empty());
        QVERIFY(result->overlay);
        QVERIFY(
            window.grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/calibrated-dualpipev-run.png")));
    }

    void calibratingAStagecraftRunKeepsTheRuntimesTiming() {
        // A run of stagecraft-run (tests/data/host-runs) predicted itself as the runtime executes
        // its programs: after Calibrate from Trace the project keeps that timing, the message says
        // so, and the overlay's device list says where each device's time went.
        QTemporaryDir dir;
        const Project project = hostRunProject(0, {"zb-h1", "interleaved", "zb-v"});
        const QString file = dir.filePath(QStringLiteral("host.stagecraft.json"));
        writeProject(project, file.toStdString());

        MainWindow window(test::quietWindowOptions(dir));
        QVERIFY(showProject(window, file));
        drop(&window, {QStringLiteral(STAGECRAFT_HOST_RUNS_DIR "/sleep_pp2/zb-h1.json")});
        window.flushAnalysis();
        QVERIFY(window.runner()->latest()->overlay);

        window.calibrate();
        window.flushAnalysis();
        const Project& calibrated = window.document()->project();
        QCOMPARE(calibrated.costs.timing, Timing::StagecraftRun);
        QVERIFY(!calibrated.runtimeFit.has_value());
        QVERIFY2(window.messageBar()->text().contains(QStringLiteral("timed as stagecraft-run executes it")),
                 qPrintable(window.messageBar()->text()));
        const AnalysisPtr result = window.runner()->latest();
        QVERIFY(result->refusals.empty());
        QCOMPARE(result->outcomes.size(), std::size_t(3));
        QVERIFY(result->overlay);

        auto* devices = window.overlayPanel()->findChild<QTreeWidget*>(QStringLiteral("overlayDevices"));
        QVERIFY(devices);
        QCOMPARE(devices->columnCount(), 6);
        QCOMPARE(devices->topLevelItemCount(), 2);
        for (int i = 0; i < devices->topLevelItemCount(); ++i) {
            QVERIFY(devices->topLevelItem(i)->text(4).contains(QStringLiteral(" → ")));
            QVERIFY(devices->topLevelItem(i)->text(5).contains(QStringLiteral(" → ")));
        }
        QVERIFY(
            window.grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/calibrated-stagecraft-run.png")));
    }

    void aStagecraftRunCanBeTimedWithTheProjectsOwnTiming() {
        // The overlay compares a stagecraft-run run with the prediction it made of itself; the
        // panel's switch (the CLI's --project-timing) times it with the project's list scheduler
        // instead, and a calibration then keeps that timing.
        QTemporaryDir dir;
        const Project project = hostRunProject(600, {"zb-h1"});
        const QString file = dir.filePath(QStringLiteral("host.stagecraft.json"));
        writeProject(project, file.toStdString());
        AnalysisRequest alone;
        alone.project = project;
        const double listed = analyze(alone).outcomes.at(0).prediction.report.time.makespan;
        alone.project.costs.timing = Timing::StagecraftRun;
        const double runTimed = analyze(alone).outcomes.at(0).prediction.report.time.makespan;
        QVERIFY(runTimed > listed * 1.01); // the two timings tell apart on this run

        MainWindow window(test::quietWindowOptions(dir));
        QVERIFY(showProject(window, file));
        QCheckBox* own = window.overlayPanel()->projectTimingBox();
        QVERIFY(own->isHidden()); // no trace yet
        drop(&window, {QStringLiteral(STAGECRAFT_HOST_RUNS_DIR "/sleep_pp2/zb-h1.json")});
        window.flushAnalysis();
        QVERIFY(window.runner()->latest()->overlay);
        QCOMPARE(window.runner()->latest()->overlay->report.makespanPredicted, runTimed);
        QVERIFY(own->isVisible());
        QVERIFY(!own->isChecked());
        QVERIFY2(own->text().contains(QStringLiteral("list-scheduler")) &&
                     own->text().contains(QStringLiteral("stagecraft-run")),
                 qPrintable(own->text()));

        QTest::mouseClick(own, Qt::LeftButton, Qt::NoModifier, QPoint(8, own->height() / 2));
        window.flushAnalysis();
        QVERIFY(own->isChecked());
        QVERIFY(window.runner()->latest()->overlay);
        QCOMPARE(window.runner()->latest()->overlay->report.makespanPredicted, listed);
        QVERIFY(window.grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/overlay-project-timing.png")));
        window.calibrate();
        window.flushAnalysis();
        QCOMPARE(window.document()->project().costs.timing, Timing::ListScheduler);

        // Unchecked again, the run's own timing is back; a newly opened trace starts unchecked.
        QTest::mouseClick(own, Qt::LeftButton, Qt::NoModifier, QPoint(8, own->height() / 2));
        window.flushAnalysis();
        QVERIFY(!window.document()->traceReading().projectTiming);
        drop(&window, {QStringLiteral(STAGECRAFT_HOST_RUNS_DIR "/sleep_pp2/zb-h1.json")});
        window.flushAnalysis();
        QVERIFY(!own->isChecked());
    }
};

QTEST_MAIN(TestCalibrateWindow)
#include "tst_calibrate_window.moc"
