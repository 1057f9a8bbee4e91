// Predicted and measured side by side in the window: a real torch run (torch 2.15's
// Interleaved1F1B, 2 ranks, 8 micro-batches) opened on its own schedule and calibrated, then
// View > Measured Rows Under Predicted puts each device's measured row directly under its
// predicted row; hovering a measured box names the op, both sides and the difference; the
// export draws the same rows; unchecking brings the outlines back.

#include "eval/trace_read_options.h"
#include "gui/chart_export.h"
#include "gui/gantt_view.h"
#include "gui/main_window.h"
#include "gui/models/constants.h"
#include "gui/models/project_document.h"
#include "gui/models/settings.h"
#include "gui/panels.h"
#include "gui_test_support.h"
#include "ir/op_name.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QMimeData>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

using namespace stagecraft;
using namespace stagecraft::gui;

namespace {

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

QByteArray contents(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestMeasuredRows : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { test::isolateSettings(); }

    void measuredRowsSitUnderTheirPredictionAndExport() {
        QTemporaryDir dir;
        Settings::instance().setMeasuredRows(QStringLiteral("overlaid")); // whatever a last run left
        MainWindow window(test::quietWindowOptions(dir));
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        // torch's own order (the CSV it dumped), its two rank traces, then calibration: the
        // prediction is the fitted one, as a user would compare them.
        const QString run =
            QStringLiteral(STAGECRAFT_TORCH_RUNS_DIR "/pp2_h1024/Interleaved1F1B_pp2_v2_m8_h1024");
        QCOMPARE(window.openPath(run + QStringLiteral(".csv")), QString());
        window.flushAnalysis();
        drop(&window, {run + QStringLiteral("_rank0.json"), run + QStringLiteral("_rank1.json")});
        window.flushAnalysis();
        QVERIFY2(window.runner()->latest()->overlay, qPrintable(window.messageBar()->text()));
        window.calibrate();
        window.flushAnalysis();
        const AnalysisPtr result = window.runner()->latest();
        QVERIFY(result->overlay);
        const int panel = int(result->overlay->outcome);
        const Timeline& predicted = result->outcomes[std::size_t(panel)].prediction.timeline;
        const int devices = predicted.shape.devices;
        QCOMPARE(devices, 2);

        GanttView* view = window.ganttView();
        QVERIFY(!view->composition().compared); // overlaid: the default
        QCOMPARE(view->frame().panels[std::size_t(panel)].rows, devices);

        auto* action = window.findChild<QAction*>(QString::fromLatin1(constants::kMeasuredRowsAction));
        QVERIFY(action);
        QVERIFY(action->isCheckable());
        action->trigger();
        QCOMPARE(window.chartSettings().measuredRows, MeasuredRows::UnderPredicted);
        const ComparedRows* rows = view->composition().compared.get();
        QVERIFY(rows);
        QCOMPARE(view->composition().comparedPanel, panel);
        const ChartFramePanel& fp = view->frame().panels[std::size_t(panel)];
        QCOMPARE(fp.rows, 2 * devices);
        QCOMPARE(fp.rowLabels,
                 (std::vector<std::string>{"D0 predicted", "measured", "D1 predicted", "measured"}));

        // Every matched measured op sits in the row right under its predicted op, on one time axis.
        const Timeline& measured = *result->measured;
        std::size_t checked = 0;
        for (std::size_t m = 0; m < measured.events.size(); ++m) {
            const std::int32_t p = rows->predictedOf[m];
            if (p < 0 || measured.events[m].lane != Lane::Compute) continue;
            const auto mbox = view->chartRows().eventBox(view->frame(), view->mapping(), panel,
                                                         int(rows->rowEventOfMeasured(m)));
            const auto pbox = view->chartRows().eventBox(view->frame(), view->mapping(), panel, p);
            QVERIFY(mbox && pbox);
            const int d = predicted.events[std::size_t(p)].device;
            QCOMPARE(pbox->y, view->frame().rows[std::size_t(fp.firstRow + 2 * d)].y);
            QCOMPARE(mbox->y, view->frame().rows[std::size_t(fp.firstRow + 2 * d + 1)].y);
            ++checked;
        }
        const std::size_t computeOps = std::size_t(std::count_if(
            result->overlay->report.ops.begin(), result->overlay->report.ops.end(),
            [&](const OpDeviation& d) { return measured.events[d.measuredEvent].lane == Lane::Compute; }));
        QCOMPARE(checked, computeOps);
        QVERIFY(checked >= 64); // F and B of 2 x 2 stages and 8 micro-batches

        // Idle causes are the schedule's: they stay on the predicted rows.
        std::size_t gaps = 0;
        for (const IdleInterval& iv : view->idleGaps(panel)) {
            const QRectF r = view->idleRect(panel, iv);
            if (r.isNull()) continue;
            QCOMPARE(r.y(), view->frame().rows[std::size_t(fp.firstRow + 2 * iv.device)].y);
            ++gaps;
        }
        QVERIFY(gaps > 0);

        // Hovering a measured box: its op's one name, both sides and the difference.
        std::size_t slowest = 0;
        double worst = -1;
        for (const OpDeviation& d : result->overlay->report.ops)
            if (std::abs(d.durationError) > worst && measured.events[d.measuredEvent].lane == Lane::Compute) {
                worst = std::abs(d.durationError);
                slowest = d.measuredEvent;
            }
        const auto box = view->chartRows().eventBox(view->frame(), view->mapping(), panel,
                                                    int(rows->rowEventOfMeasured(slowest)));
        QVERIFY(box);
        const QPoint at = view->fromScene(QPointF(box->x + box->w / 2, box->y + box->h / 2)).toPoint();
        const QString tip = view->toolTipAt(at);
        const QString name =
            QString::fromStdString(opName(measured.events[slowest].op, predicted.shape.splitBackward));
        QVERIFY2(tip.contains(name + QStringLiteral(" on D")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral(", measured<br>measured: starts ")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("<br>predicted: starts ")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("<br>difference: starts ")), qPrintable(tip));
        // A click selects the measured box and outlines, on the measured rows, the measured ops
        // its prediction waits for and that wait for it (core's selectionLinks, as the viewer).
        QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, at);
        QVERIFY(view->selection());
        QCOMPARE(view->selection()->second, int(rows->rowEventOfMeasured(slowest)));
        QVERIFY(!view->producerEvents().empty() || !view->consumerEvents().empty());
        for (const std::vector<int>* linked : {&view->producerEvents(), &view->consumerEvents()})
            for (const int e : *linked) QVERIFY(rows->isMeasured(std::size_t(e)));
        QVERIFY(view->grab().toImage().save(
            QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/measured-rows-selected.png")));
        view->clearSelection();

        // The chart (the window's docks would show this machine's paths), for docs/gui.md: refreshed
        // with STAGECRAFT_UPDATE_SCREENSHOTS=1.
        const QImage shot = view->grab().toImage();
        QVERIFY(shot.save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/measured-rows-window.png")));
        if (qEnvironmentVariableIsSet("STAGECRAFT_UPDATE_SCREENSHOTS"))
            QVERIFY(
                shot.save(QStringLiteral(STAGECRAFT_SOURCE_DIR "/resources/screenshots/measured-rows.png")));

        // The export draws these rows (the setting travels with the chart's settings).
        ExportRequest request;
        request.chart = window.chartSettings();
        request.widthPt = 500;
        request.path = QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/measured-rows.svg");
        request.file.format = render::ExportFormat::Svg;
        QCOMPARE(window.exportTo(request), QString());
        const QByteArray svg = contents(request.path);
        QVERIFY(svg.contains(">D0 predicted</text>"));
        QVERIFY(svg.contains(", measured") && svg.contains("measured: starts ") &&
                svg.contains("difference: "));
        QVERIFY(!svg.contains("class=\"op measured\"")); // no outlines: the run has rows of its own
        request.path = QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/measured-rows.png");
        request.file.format = render::ExportFormat::Png;
        request.file.dpi = 200;
        QCOMPARE(window.exportTo(request), QString());
        QVERIFY(QImage(request.path).width() > 1000);

        // Unchecked: outlines over the predicted bars again, one row per device.
        action->trigger();
        QVERIFY(!view->composition().compared);
        QCOMPARE(view->frame().panels[std::size_t(panel)].rows, devices);
        QCOMPARE(view->composition().panels[std::size_t(panel)].measured, result->measured.get());
    }

    /// The overlay panel's Iteration chooser reads the trace again with another iteration, or the
    /// median over them, as `stagecraft-cli overlay --iteration N / --median` reads it.
    void iterationChooserReadsTheTraceAgain() {
        QTemporaryDir dir;
        MainWindow window(test::quietWindowOptions(dir));
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString run = QStringLiteral(STAGECRAFT_TORCH_RUNS_DIR "/pp2_h512/LoopedBFS_pp2_v2_m8_h512");
        QCOMPARE(window.openPath(run + QStringLiteral(".csv")), QString());
        window.flushAnalysis();
        drop(&window, {run + QStringLiteral("_rank0.json"), run + QStringLiteral("_rank1.json")});
        window.flushAnalysis();
        QVERIFY2(window.runner()->latest()->overlay, qPrintable(window.messageBar()->text()));
        const MeasuredTrace opened = *window.document()->trace();
        const int iterations = opened.info.iterations;
        QVERIFY(iterations > 1);
        QCOMPARE(opened.info.iteration, opened.info.iterationIds.back()); // the last, as the CLI reads it

        QComboBox* box = window.overlayPanel()->iterationBox();
        QVERIFY(box->isVisible());
        QCOMPARE(box->count(), iterations + 1); // the median, then each iteration
        QCOMPARE(box->currentIndex(), iterations);

        // The median over the iterations: what `overlay --median` reads.
        box->setCurrentIndex(0);
        emit box->activated(0);
        window.flushAnalysis();
        QVERIFY(window.document()->traceReading().traceMedian);
        QVERIFY2(window.runner()->latest()->overlay, qPrintable(window.messageBar()->text()));
        QVERIFY(!(*window.document()->trace()->timeline == *opened.timeline));
        EvaluationInput cli;
        cli.tracePaths = {(run + QStringLiteral("_rank0.json")).toStdString(),
                          (run + QStringLiteral("_rank1.json")).toStdString()};
        cli.traceMedian = true;
        const MeasuredTrace expected = loadMeasuredTrace(opened.files, measuredTraceOptions(cli));
        QVERIFY(*window.document()->trace()->timeline == *expected.timeline);
        QCOMPARE(box->currentIndex(), 0);

        // The first iteration.
        const int first = opened.info.iterationIds.front();
        box->setCurrentIndex(1);
        emit box->activated(1);
        window.flushAnalysis();
        QVERIFY(!window.document()->traceReading().traceMedian);
        QCOMPARE(window.document()->trace()->info.iteration, first);
        QCOMPARE(box->currentIndex(), 1);

        const QImage shot = window.grab().toImage();
        QVERIFY(shot.save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/overlay-iteration.png")));
    }
};

QTEST_MAIN(TestMeasuredRows)
#include "tst_measured_rows.moc"
