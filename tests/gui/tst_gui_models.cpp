// Models without a window: document and undo, schedule availability, metrics, chart scene,
// analysis runner, autosave. Every item model is wrapped in QAbstractItemModelTester.

#include "eval/chart_composition.h"
#include "gui/models/analysis_runner.h"
#include "gui/models/autosave.h"
#include "gui/models/format.h"
#include "gui/models/gpu_catalogue.h"
#include "gui/models/memory_curves.h"
#include "gui/models/metrics_model.h"
#include "gui/models/op_details.h"
#include "gui/models/project_document.h"
#include "gui/models/schedule_list_model.h"
#include "gui/models/windowed_chart.h"
#include "gui_test_support.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace stagecraft;
using namespace stagecraft::gui;

class TestGuiModels : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { test::isolateSettings(); }

    void fieldEditIsOneUndoStepAndMerges() {
        ProjectDocument doc;
        QSignalSpy changed(&doc, &ProjectDocument::projectChanged);
        QVERIFY(!doc.setField(QStringLiteral("parallel.microbatches"), QStringLiteral("12")));
        QVERIFY(!doc.setField(QStringLiteral("parallel.microbatches"), QStringLiteral("16")));
        QCOMPARE(doc.project().parallel.microbatches, 16);
        QCOMPARE(doc.undoStack()->count(), 1); // consecutive edits of one field merge
        QVERIFY(!doc.setField(QStringLiteral("model.layers"), QStringLiteral("32")));
        QCOMPARE(doc.undoStack()->count(), 2);
        QVERIFY(doc.isModified());
        doc.undoStack()->undo();
        QCOMPARE(doc.project().model.layers, 24);
        doc.undoStack()->undo();
        QCOMPARE(doc.project().parallel.microbatches, defaultProject().parallel.microbatches);
        QVERIFY(!doc.isModified());
        doc.undoStack()->redo();
        QCOMPARE(doc.project().parallel.microbatches, 16);
        QCOMPARE(changed.count(), 6);
    }

    void refusedValueLeavesProjectAndStackAlone() {
        ProjectDocument doc;
        const std::optional<QString> error =
            doc.setField(QStringLiteral("model.layers"), QStringLiteral("0"));
        QVERIFY(error);
        QVERIFY2(error->contains(QStringLiteral("model.layers")), qPrintable(*error));
        QCOMPARE(doc.project(), defaultProject());
        QCOMPARE(doc.undoStack()->count(), 0);
        const auto notNumber = doc.setField(QStringLiteral("parallel.pp"), QStringLiteral("four"));
        QVERIFY(notNumber);
        QVERIFY2(notNumber->contains(QStringLiteral("four")), qPrintable(*notNumber));
    }

    void gpuPresetFillsClusterInOneStep() {
        ProjectDocument doc;
        const GpuSpec* h100 = findGpu("h100-sxm");
        QVERIFY(h100);
        doc.setGpu(*h100);
        QCOMPARE(doc.project().cluster.gpu, std::string("H100-SXM"));
        QCOMPARE(doc.project().cluster.peakTflops, 989.0);
        QCOMPARE(doc.project().cluster.intraNodeGbps, 3600.0);
        QCOMPARE(doc.project().cluster.interNodeGbps, 400.0);
        QCOMPARE(doc.project().memory.limitGib, 80.0); // followed the GPU (it was the full memory)
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(matchGpu(doc.project().cluster), h100);
        const GpuSpec* h200 = findGpu("H200");
        QVERIFY(h200);
        doc.setGpu(*h200);
        QCOMPARE(doc.project().memory.limitGib, 141.0);
        QVERIFY(findGpu("A100-40GB") && findGpu("V100-32GB") && findGpu("A100-80GB"));
        QVERIFY(!findGpu("TPUv4"));
    }

    void scheduleListModelChecksAndDisables() {
        ProjectDocument doc;
        ScheduleListModel model(&doc);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), int(generators().size()));
        const int oneF = model.rowOf(QStringLiteral("1f1b"));
        const int gpipe = model.rowOf(QStringLiteral("gpipe"));
        QVERIFY(oneF >= 0 && gpipe >= 0);
        QCOMPARE(model.index(oneF).data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
        QCOMPARE(model.index(gpipe).data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
        QVERIFY(model.setData(model.index(gpipe), Qt::Checked, Qt::CheckStateRole));
        QCOMPARE(doc.project().schedules.back(), std::string("gpipe"));
        QCOMPARE(model.index(gpipe).data(Qt::CheckStateRole).toInt(), int(Qt::Checked));

        // Interleaved needs rounds of equal size (torch's rule): with m = 9, p = 4 (2 rounds) it is
        // disabled, with the rule as tooltip.
        QVERIFY(!doc.setField(QStringLiteral("parallel.microbatches"), QStringLiteral("9")));
        const int inter = model.rowOf(QStringLiteral("interleaved"));
        QVERIFY(!(model.flags(model.index(inter)) & Qt::ItemIsEnabled));
        const QString problem = model.index(inter).data(ScheduleListModel::ProblemRole).toString();
        const auto expected =
            constraintViolation(findGenerator("interleaved"), scheduleParams(doc.project()));
        QVERIFY(expected);
        QCOMPARE(problem, QString::fromStdString(*expected));
        QVERIFY(model.index(inter).data(Qt::ToolTipRole).toString().contains(problem));
        QVERIFY(model.flags(model.index(oneF)) & Qt::ItemIsEnabled);
    }

    void analysisReportsEverySchedule() {
        AnalysisRequest request;
        request.project = defaultProject();
        const AnalysisResult result = analyze(request);
        QCOMPARE(result.outcomes.size(), request.project.schedules.size());
        QVERIFY(result.refusals.empty());
        for (const ScheduleOutcome& o : result.outcomes) {
            QVERIFY(o.prediction.report.iterationUs > 0);
            QCOMPARE(o.prediction.report.iterationUs, o.prediction.timeline.makespan());
        }
        // A schedule the parameters do not suit becomes a failure with core's message.
        request.project.parallel.microbatches = 9; // pp = 4: rounds of 4.5, which interleaved refuses
        request.project.schedules = {"1f1b", "interleaved"};
        const AnalysisResult partial = analyze(request);
        QCOMPARE(partial.outcomes.size(), std::size_t(1));
        QCOMPARE(partial.refusals.size(), std::size_t(1));
        QCOMPARE(partial.refusals[0].name, std::string("interleaved"));
    }

    void metricsModelRowsSortAndCsv() {
        AnalysisRequest request;
        request.project = defaultProject();
        auto result = std::make_shared<const AnalysisResult>(analyze(request));
        MetricsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(result);
        QCOMPARE(model.rowCount(), int(result->outcomes.size()));
        QCOMPARE(model.columnCount(), int(MetricsModel::ColumnCount));
        const double iteration =
            model.index(0, MetricsModel::Iteration).data(MetricsModel::SortRole).toDouble();
        QCOMPARE(iteration, result->outcomes[0].prediction.report.iterationUs);
        QCOMPARE(model.index(0, MetricsModel::Iteration).data().toString(),
                 formatMicros(result->outcomes[0].prediction.report.iterationUs));

        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(MetricsModel::SortRole);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.sort(MetricsModel::Iteration, Qt::AscendingOrder);
        for (int r = 1; r < proxy.rowCount(); ++r)
            QVERIFY(proxy.index(r - 1, MetricsModel::Iteration).data(MetricsModel::SortRole).toDouble() <=
                    proxy.index(r, MetricsModel::Iteration).data(MetricsModel::SortRole).toDouble());
        const QStringList lines = modelToCsv(proxy).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), proxy.rowCount() + 1);
        QCOMPARE(
            lines[0],
            QStringLiteral("Schedule,Iteration,Bubble,Span bubble,Throughput,MFU,Peak memory,Fits limit"));
        QVERIFY(lines[1].contains(proxy.index(0, 0).data().toString()));
        model.setResult(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void csvQuotesCells() { QStandardItemModelLike(); }

    void chartSceneStacksPanelsWithCostLine() {
        AnalysisRequest request;
        request.project = defaultProject();
        request.project.schedules = {"1f1b", "zb-h1"};
        const AnalysisResult result = analyze(request);
        const Scene scene = buildChartScene(result, ChartSettings{}, 600);
        QCOMPARE(scene.width, 600.0);
        int panels[2] = {0, 0};
        for (const SceneRect& r : scene.rects)
            if (isEventBar(r) && r.role == RectRole::Op) ++panels[r.panel];
        QVERIFY(panels[0] > 0 && panels[1] > 0);
        // The cost line (wrapped at the chart's width), and that 1F1B draws its backward as one
        // box of B+W, which ZB-H1 splits.
        const std::string costLine = "Costs — " + result.outcomes[0].prediction.report.costs.text;
        std::string lines;
        for (const SceneText& t : scene.texts)
            if (t.text.rfind("Costs — ", 0) == 0 || !lines.empty())
                lines += (lines.empty() ? "" : " ") + t.text;
        QVERIFY2(lines.find(costLine) == 0, lines.c_str());
        QVERIFY2(lines.find("backward not split in 1F1B") != std::string::npos, lines.c_str());
        QVERIFY2(lines.find("one box B+W = ") != std::string::npos, lines.c_str());
        QVERIFY2(lines.find("ZB-H1") == std::string::npos, lines.c_str());
        QVERIFY(buildChartScene(AnalysisResult{}, ChartSettings{}, 600).rects.empty());
    }

    void measuredOutlinesFollowTheTrace() {
        Project project = defaultProject();
        project.schedules = {"1f1b"};
        AnalysisRequest request;
        request.project = project;
        request.trace = MeasuredTrace{
            "t.json", std::make_shared<const Timeline>(test::measuredTimeline(project, "1f1b", 1.1))};
        const AnalysisResult result = analyze(request);
        QVERIFY2(result.overlay, result.overlayError.c_str());
        // A run 10 % slower: the prediction 1 / 1.1 of it, 9.1 % short.
        QVERIFY(std::abs(result.overlay->report.makespanError - (1 / 1.1 - 1)) < 1e-6);
        const Scene scene = buildChartScene(result, ChartSettings{}, 600);
        int outlines = 0, bars = 0;
        for (const SceneRect& r : scene.rects) {
            if (r.kind == kMeasuredKind) ++outlines;
            if (isEventBar(r) && r.role == RectRole::Op) ++bars;
        }
        QCOMPARE(outlines, bars);
        ChartSettings noOverlay;
        noOverlay.overlay = false;
        for (const SceneRect& r : buildChartScene(result, noOverlay, 600).rects)
            QVERIFY(r.kind != kMeasuredKind);
    }

    void mismatchedTraceIsRefusedWithReason() {
        Project other = defaultProject();
        other.parallel.pp = 2;
        other.parallel.dp = 4;
        AnalysisRequest request;
        request.project = defaultProject();
        request.project.schedules = {"1f1b"};
        request.trace = MeasuredTrace{
            "t.json", std::make_shared<const Timeline>(test::measuredTimeline(other, "1f1b", 1.0))};
        const AnalysisResult result = analyze(request);
        QVERIFY(!result.overlay);
        QVERIFY(!result.overlayError.empty());
    }

    void dependenciesOfABar() {
        Project project = defaultProject();
        const Prediction p = predict(project, generateSchedule("1f1b", scheduleParams(project)));
        EventDependencies deps(p);
        // B of micro-batch 0 on the last stage waits for its F; F0 on stage 1 waits for F0 on stage 0.
        int f1 = -1, f0 = -1;
        for (std::size_t i = 0; i < p.timeline.events.size(); ++i) {
            const TimelineEvent& e = p.timeline.events[i];
            if (e.lane != Lane::Compute || e.op.kind != OpKind::F || e.op.mb != 0) continue;
            if (e.op.stage == 1) f1 = int(i);
            if (e.op.stage == 0) f0 = int(i);
        }
        QVERIFY(f0 >= 0 && f1 >= 0);
        QCOMPARE(deps.producers(f1), std::vector<int>{f0});
        const std::vector<int> consumers = deps.consumers(f0);
        QVERIFY(std::find(consumers.begin(), consumers.end(), f1) != consumers.end());
        QVERIFY(deps.producers(-1).empty());
        const QString text = describeEvent(p.timeline.events[std::size_t(f1)], p.timeline.shape, false);
        QVERIFY2(text.startsWith(QStringLiteral("1F0 · device 1\nstart ")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("duration")));
    }

    void memoryAfterAnOp() {
        MemoryReport report;
        report.devices.resize(1);
        report.devices[0].staticBytes = 10;
        report.devices[0].curve = {{0, 10}, {2, 30}, {5, 20}};
        QCOMPARE(memoryBefore(report, 0, -1), 10.0);
        QCOMPARE(memoryBefore(report, 0, 1), 10.0);
        QCOMPARE(memoryBefore(report, 0, 2), 10.0);
        QCOMPARE(memoryBefore(report, 0, 2.1), 30.0);
        QCOMPARE(memoryBefore(report, 0, 5), 30.0);
        QCOMPARE(memoryBefore(report, 0, 99), 20.0);
        QCOMPARE(memoryBefore(report, 1, 3), 0.0);

        // 1F1B on the default project: after F0 on stage 0 the device holds its static memory
        // and one micro-batch's activations (F1 starting at that instant is not counted); after
        // the last B it is back to its static memory.
        Project project = defaultProject();
        const Prediction p = predict(project, generateSchedule("1f1b", scheduleParams(project)));
        const TimelineEvent* f0 = nullptr;
        const TimelineEvent* lastB = nullptr;
        for (const TimelineEvent& e : p.timeline.events) {
            if (e.lane != Lane::Compute || e.device != 0) continue;
            if (e.op.kind == OpKind::F && e.op.mb == 0) f0 = &e;
            if (e.op.kind == OpKind::B && (!lastB || e.end > lastB->end)) lastB = &e;
        }
        QVERIFY(f0 && lastB);
        const double staticBytes = p.report.memory.devices[0].staticBytes;
        const double expected = staticBytes + p.setup.memory.stages[0].activationBytes;
        QVERIFY(expected > staticBytes);
        QCOMPARE(memoryAfterOp(p, *f0), expected);
        QCOMPARE(memoryAfterOp(p, *lastB), staticBytes);
        QCOMPARE(memoryAfterText(p, *f0), QStringLiteral("memory after: ") + formatBytes(expected));
        QVERIFY(formatBytes(expected).endsWith(QStringLiteral("GiB")));

        // Unit mode reads in M_a: after GPipe's F1 on device 0, two micro-batches of stage 0.
        Project units = defaultProject();
        units.costs.mode = CostMode::Unit;
        const Prediction u = predict(units, generateSchedule("gpipe", scheduleParams(units)));
        QVERIFY(u.report.unitless);
        int checked = 0;
        for (const TimelineEvent& e : u.timeline.events)
            if (e.lane == Lane::Compute && e.device == 0 && e.op.kind == OpKind::F && e.op.mb == 1) {
                ++checked;
                QCOMPARE(memoryAfterText(u, e),
                         QStringLiteral("memory after: %1 × M_a")
                             .arg(QString::number(2 * u.setup.memory.stages[0].activationBytes, 'g', 4)));
            }
        QCOMPARE(checked, 1);
    }

    void runnerUsesWorkerForBigWork() {
        AnalysisRunner runner;
        QSignalSpy finished(&runner, &AnalysisRunner::finished);
        QSignalSpy busy(&runner, &AnalysisRunner::busyChanged);
        AnalysisRequest request;
        request.project = defaultProject();
        runner.submit(request); // small: in place
        QCOMPARE(finished.count(), 1);
        QCOMPARE(busy.count(), 0);
        runner.setWorkerThreshold(0);
        request.project.parallel.microbatches = 16;
        runner.submit(request);
        QVERIFY(runner.isBusy());
        request.project.parallel.microbatches = 32;
        runner.submit(request); // coalesced: only the newest runs next
        runner.waitForIdle();
        QVERIFY(!runner.isBusy());
        QCOMPARE(finished.count(), 2);
        QCOMPARE(runner.latest()->outcomes.front().prediction.schedule.microbatches, 32);
        QCOMPARE(busy.count(), 2);
        QTest::qWait(20); // a late queued signal must not deliver twice
        QCOMPARE(finished.count(), 2);
        QVERIFY(!runner.takeLatestChart()); // no chart settings given: no rows built
    }

    void runnerBuildsTheChartRowsOnItsWorker() {
        AnalysisRunner runner;
        AnalysisRequest request;
        request.project = defaultProject();
        ChartSettings settings;
        settings.palette = "slides";
        runner.submit(request, settings); // small: in place, the view builds its rows itself
        QVERIFY(!runner.takeLatestChart());
        runner.setWorkerThreshold(0);
        runner.submit(request, settings);
        runner.waitForIdle();
        std::shared_ptr<WindowedChart> chart = runner.takeLatestChart();
        QVERIFY(chart);
        QVERIFY(chart->result == runner.latest());
        QVERIFY(chart->settings == settings);
        QVERIFY(!chart->options.tooltips);
        // The same rows the view would build on its own thread.
        const std::shared_ptr<WindowedChart> here = buildWindowedChart(runner.latest(), settings);
        QCOMPARE(chart->rows.rowCount(), here->rows.rowCount());
        QCOMPARE(chart->rows.eventCount(), here->rows.eventCount());
        QVERIFY(chart->rows.eventCount() > 0);
        QVERIFY(!runner.takeLatestChart()); // handed over once
    }

    void memoryCurvesKeepEveryStepOfASmallCurveAndThePeaksOfABigOne() {
        // Small: every step, from 0 to the end, scaled.
        const std::vector<std::pair<double, double>> small{{1, 10}, {2, 30}, {4, 20}};
        const QList<QPointF> steps = memoryStepPoints(small, 5, 2, 0.5, 16);
        const QList<QPointF> expected{{0, 5}, {2, 5}, {2, 5}, {4, 5}, {4, 15}, {8, 15}, {8, 10}, {10, 10}};
        QCOMPARE(steps, expected);
        // Big: a saw of 100,000 changes thinned to 64 columns: at most four points each (the
        // range each column holds), the peak among them, from 0 to the end.
        std::vector<std::pair<double, double>> saw;
        for (int i = 0; i < 100000; ++i) saw.emplace_back(i * 0.01, i % 2 ? 1.0 + (i == 77777) : 0.0);
        const QList<QPointF> thin = memoryStepPoints(saw, 1000, 1, 1, 64);
        QVERIFY(thin.size() <= 4 * 64 + 1);
        QVERIFY(thin.size() >= 64); // every column's stroke from 0 to 1
        QCOMPARE(thin.front().x(), 0.0);
        QCOMPARE(thin.back().x(), 1000.0);
        double top = 0;
        for (const QPointF& p : thin) top = std::max(top, p.y());
        QCOMPARE(top, 2.0);
        // At the start of the column that holds the peak (t = 777.77), and nowhere else.
        for (const QPointF& p : thin)
            if (p.y() == 2.0) QCOMPARE(p.x(), 1000.0 * std::floor(777.77 / (1000.0 / 64)) / 64);
        QCOMPARE(thin.back(), QPointF(1000, 1)); // the saw's last value to the end
    }

    void runnerBuildsTheMemoryCurvesOnItsWorker() {
        AnalysisRunner runner;
        AnalysisRequest request;
        request.project = defaultProject();
        runner.submit(request); // small: in place, the panel builds its curves itself
        QVERIFY(!runner.takeLatestMemory());
        runner.setWorkerThreshold(0);
        runner.submit(request);
        runner.waitForIdle();
        const std::shared_ptr<const PreparedMemory> memory = runner.takeLatestMemory();
        QVERIFY(memory);
        const AnalysisResult& result = *runner.latest();
        QCOMPARE(memory->size(), result.outcomes.size());
        for (std::size_t o = 0; o < result.outcomes.size(); ++o) {
            const MemoryCurves here = buildMemoryCurves(result.outcomes[o]);
            QCOMPARE((*memory)[o].devices.size(), result.outcomes[o].prediction.report.memory.devices.size());
            QVERIFY((*memory)[o].devices == here.devices); // what the panel would build itself
        }
        QVERIFY(!runner.takeLatestMemory()); // handed over once
    }

    void autosaveWritesAndFindsOrphans() {
        QTemporaryDir dir;
        ProjectDocument doc;
        Autosave autosave(&doc, dir.path());
        autosave.saveNow();
        QVERIFY(!QFile::exists(autosave.sessionFile())); // nothing unsaved yet
        QVERIFY(!doc.setField(QStringLiteral("model.layers"), QStringLiteral("48")));
        autosave.saveNow();
        QVERIFY(QFile::exists(autosave.sessionFile()));
        // A session file without a live lock is an orphan of a crash.
        const QString crashed = dir.filePath(QStringLiteral("session-dead0000.stagecraft.json"));
        QVERIFY(QFile::copy(autosave.sessionFile(), crashed));
        QCOMPARE(autosave.orphans(), QStringList{crashed});
        Autosave::removeOrphan(crashed);
        QVERIFY(autosave.orphans().isEmpty());
        doc.undoStack()->setClean();
        QVERIFY(!QFile::exists(autosave.sessionFile())); // a clean document has no autosave
    }

    void formats() {
        QCOMPARE(formatMicros(850), QStringLiteral("850 µs"));
        QCOMPARE(formatMicros(12345), QStringLiteral("12.35 ms")); // core's durationText
        QCOMPARE(formatMicros(1204000), QStringLiteral("1.204 s"));
        QCOMPARE(formatBytes(1.5 * 1024 * 1024 * 1024), QStringLiteral("1.5 GiB"));
        QCOMPARE(formatBytes(512.0 * 1024 * 1024), QStringLiteral("512 MiB"));
        QCOMPARE(formatPercent(0.1234), QStringLiteral("12.3 %"));
        QCOMPARE(formatSignedPercent(0.052), QStringLiteral("+5.2 %"));
        QCOMPARE(formatSignedPercent(-0.1), QStringLiteral("-10.0 %"));
    }

  private:
    void QStandardItemModelLike() {
        AnalysisResult result;
        ScheduleOutcome o;
        o.title = "a, \"quoted\" name";
        result.outcomes.push_back(o);
        MetricsModel model;
        model.setResult(std::make_shared<const AnalysisResult>(result));
        const QStringList lines = modelToCsv(model).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY2(lines[1].startsWith(QStringLiteral("\"a, \"\"quoted\"\" name\",")), qPrintable(lines[1]));
    }
};

QTEST_GUILESS_MAIN(TestGuiModels)
#include "tst_gui_models.moc"
