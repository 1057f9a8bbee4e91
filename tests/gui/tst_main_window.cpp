// Drives the real MainWindow on the offscreen platform, as a user would: edit fields, pick
// schedules, open a trace, export, undo, zoom and click the chart.

#include "gui/chart_export.h"
#include "gui/export_dialog.h"
#include "gui/gantt_view.h"
#include "gui/main_window.h"
#include "gui/models/autosave.h"
#include "gui/models/memory_curves.h"
#include "gui/models/metrics_model.h"
#include "gui/models/project_document.h"
#include "gui/models/schedule_list_model.h"
#include "gui/panels.h"
#include "gui/parameter_panel.h"
#include "gui/search_panel.h"
#include "gui_test_support.h"
#include "io/schedule_file.h"
#include "ir/op_name.h"
#include "layout/chart_view.h"
#include "project/project_json.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QLineSeries>
#include <QMimeData>
#include <QPointer>
#include <QProcess>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <QWheelEvent>
#include <QXmlStreamReader>
#include <set>
#include <tuple>

using namespace stagecraft;
using namespace stagecraft::gui;

namespace {

std::set<int> panelsOf(const Scene& scene) {
    std::set<int> panels;
    for (const SceneRect& r : scene.rects)
        if (isEventBar(r)) panels.insert(r.panel);
    return panels;
}

int barCount(const Scene& scene) {
    int n = 0;
    for (const SceneRect& r : scene.rects) n += isEventBar(r) && r.role == RectRole::Op;
    return n;
}

bool hasText(const Scene& scene, const std::string& text) {
    for (const SceneText& t : scene.texts)
        if (t.text == text) return true;
    return false;
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { test::isolateSettings(); }

    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        MainWindowOptions options;
        options.offerRecovery = false;
        options.confirmClose = false;
        options.restoreGeometry = false;
        options.autosaveDirectory = m_dir->filePath(QStringLiteral("autosave"));
        m_window = std::make_unique<MainWindow>(options);
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        // Window shortcuts (C, I, ...) act in the active window; on an X server without a window
        // manager nothing activates it unless asked, and whether the first window gets the focus
        // anyway depends on the server.
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_window->flushAnalysis();
    }

    void cleanup() { m_window.reset(); }

    void startsWithTheDefaultProjectDrawn() {
        const auto& result = m_window->runner()->latest();
        QVERIFY(result);
        QCOMPARE(result->outcomes.size(), defaultProject().schedules.size());
        QCOMPARE(panelsOf(m_window->ganttView()->scene()).size(), defaultProject().schedules.size());
        QCOMPARE(m_window->metricsPanel()->model()->rowCount(), int(defaultProject().schedules.size()));
        QVERIFY(m_window->memoryPanel()->seriesCount() >=
                defaultProject().parallel.pp + 1); // devices + limit
    }

    void editingAFieldChangesChartAndMetrics() {
        auto* spin = qobject_cast<QSpinBox*>(
            m_window->parameterPanel()->editorFor(QStringLiteral("parallel.microbatches")));
        QVERIFY(spin);
        const int barsBefore = barCount(m_window->ganttView()->scene());
        const QString iterationBefore =
            m_window->metricsPanel()->model()->index(0, MetricsModel::Iteration).data().toString();
        spin->setValue(16);
        m_window->flushAnalysis();
        QCOMPARE(m_window->document()->project().parallel.microbatches, 16);
        QVERIFY(barCount(m_window->ganttView()->scene()) > barsBefore);
        QVERIFY(m_window->metricsPanel()->model()->index(0, MetricsModel::Iteration).data().toString() !=
                iterationBefore);
        QVERIFY(m_window->windowTitle().contains(QLatin1Char('*')));
    }

    void oneEditChecksEachScheduleOnce() {
        // The schedule list, the work estimate and the analysis share one check per registered
        // schedule (eval/schedule_checks.h); an edit used to check each one about nine times.
        auto* spin = qobject_cast<QSpinBox*>(
            m_window->parameterPanel()->editorFor(QStringLiteral("parallel.microbatches")));
        QVERIFY(spin);
        const std::uint64_t before = paramCheckCount();
        spin->setValue(12);
        m_window->flushAnalysis();
        QCOMPARE(m_window->document()->project().parallel.microbatches, 12);
        QVERIFY(m_window->runner()->latest());
        QCOMPARE(m_window->runner()->latest()->outcomes.size(), defaultProject().schedules.size());
        QCOMPARE(paramCheckCount() - before, std::uint64_t(generators().size()));
    }

    void invalidValueShowsInlineMessageAndKeepsChart() {
        const AnalysisPtr before = m_window->runner()->latest();
        const Scene sceneBefore = m_window->ganttView()->scene();
        // In range for the field, but heads must divide hidden (2048): a rule between fields.
        auto* heads =
            qobject_cast<QSpinBox*>(m_window->parameterPanel()->editorFor(QStringLiteral("model.heads")));
        QVERIFY(heads);
        heads->setValue(12);
        m_window->flushAnalysis();
        const QString message = m_window->parameterPanel()->messageFor(QStringLiteral("model.heads"));
        QVERIFY2(message.contains(QStringLiteral("Attention heads")),
                 qPrintable(message));                  // the form's words
        QCOMPARE(m_window->runner()->latest(), before); // last valid chart kept
        QCOMPARE(m_window->ganttView()->scene().rects.size(), sceneBefore.rects.size());
        QVERIFY(m_window->messageBar()->text().contains(QStringLiteral("last valid")));
        // Fixing it clears the message and draws again.
        heads->setValue(16);
        m_window->flushAnalysis();
        QVERIFY(m_window->parameterPanel()->messageFor(QStringLiteral("model.heads")).isEmpty());
        QVERIFY(m_window->runner()->latest() != before);

        // A value core refuses outright (bad text) is shown at its field; the project is unchanged.
        auto* stages =
            qobject_cast<QLineEdit*>(m_window->parameterPanel()->editorFor(QStringLiteral("costs.stages")));
        QVERIFY(stages);
        stages->setText(QStringLiteral("not-a-stage"));
        stages->setModified(true);
        emit stages->editingFinished();
        const QString refused = m_window->parameterPanel()->messageFor(QStringLiteral("costs.stages"));
        QVERIFY2(!refused.isEmpty(), "no inline message for a refused value");
        QVERIFY(m_window->document()->project().costs.stages.empty());
    }

    void twoCheckedSchedulesAreBothDrawn() {
        ScheduleListModel* model = m_window->schedulePicker()->model();
        for (int r = 0; r < model->rowCount(); ++r)
            model->setData(model->index(r), Qt::Unchecked, Qt::CheckStateRole);
        m_window->flushAnalysis();
        QVERIFY(panelsOf(m_window->ganttView()->scene()).empty());
        model->setData(model->index(model->rowOf(QStringLiteral("gpipe"))), Qt::Checked, Qt::CheckStateRole);
        model->setData(model->index(model->rowOf(QStringLiteral("zb-h1"))), Qt::Checked, Qt::CheckStateRole);
        m_window->flushAnalysis();
        QCOMPARE(panelsOf(m_window->ganttView()->scene()), (std::set<int>{0, 1}));
        const Scene& scene = m_window->ganttView()->scene();
        QVERIFY(hasText(scene, std::string(findGenerator("gpipe").title)));
        QVERIFY(hasText(scene, std::string(findGenerator("zb-h1").title)));
        QCOMPARE(m_window->metricsPanel()->model()->rowCount(), 2);
    }

    void openingATraceOverlaysItWithErrorFigures() {
        Project project = m_window->document()->project();
        const QString trace = m_dir->filePath(QStringLiteral("measured.json"));
        writeChromeTrace(test::measuredTimeline(project, "1f1b", 1.1), trace.toStdString());
        QCOMPARE(m_window->openPath(trace), QString());
        m_window->flushAnalysis();
        const auto& result = m_window->runner()->latest();
        QVERIFY(result->overlay);
        QCOMPARE(result->outcomes[result->overlay->outcome].name, std::string("1f1b"));
        const QString text = m_window->overlayPanel()->text();
        QVERIFY2(text.contains(QStringLiteral("Prediction's makespan error: -9.1 %")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Ops matched")));
        int outlines = 0;
        for (const SceneRect& r : m_window->ganttView()->scene().rects) outlines += r.kind == kMeasuredKind;
        QVERIFY(outlines > 0);

        // A trace of another shape is refused with core's reason, and dropped.
        Project other = project;
        other.parallel.pp = 2;
        other.parallel.dp = 4;
        const QString wrong = m_dir->filePath(QStringLiteral("other.json"));
        writeChromeTrace(test::measuredTimeline(other, "1f1b", 1.0), wrong.toStdString());
        QCOMPARE(m_window->openPath(wrong), QString());
        m_window->flushAnalysis();
        QVERIFY2(m_window->messageBar()->text().startsWith(QStringLiteral("Trace refused")),
                 qPrintable(m_window->messageBar()->text()));
        QVERIFY(!m_window->document()->trace());
        QVERIFY(!m_window->runner()->latest()->overlay);

        // Not a trace at all: an error naming the file, no crash.
        const QString junk = m_dir->filePath(QStringLiteral("junk.json"));
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"traceEvents\": [ {\"ph\": ");
        f.close();
        QVERIFY(m_window->openPath(junk).contains(QStringLiteral("junk.json")));

        // An Nsight Systems JSON export is a trace (core's sniffer tells it from its first line;
        // it has neither traceEvents nor a leading '['): it reaches the overlay, which reads it
        // and refuses it for its shape (2 ranks, the project has 4), naming the reason.
        const QString nsys = QStringLiteral(STAGECRAFT_SOURCE_DIR "/tests/data/nsys/zb_1f1b_2rank_2mb.json");
        QCOMPARE(m_window->openPath(nsys), QString());
        m_window->flushAnalysis();
        QVERIFY2(m_window->messageBar()->text().startsWith(QStringLiteral("Trace refused")) &&
                     m_window->messageBar()->text().contains(QStringLiteral("shape")),
                 qPrintable(m_window->messageBar()->text()));
        QVERIFY(m_window->grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/open-nsys-json.png")));
    }

    void exportsEveryFormat() {
        struct Case {
            QString name;
            render::ExportFormat format;
        };
        for (const Case& c : {Case{QStringLiteral("chart.svg"), render::ExportFormat::Svg},
                              Case{QStringLiteral("chart.pdf"), render::ExportFormat::Pdf},
                              Case{QStringLiteral("chart.png"), render::ExportFormat::Png},
                              Case{QStringLiteral("chart.tex"), render::ExportFormat::Tikz}}) {
            ExportRequest request;
            request.path = m_dir->filePath(c.name);
            request.file.format = c.format;
            request.file.dpi = 144;
            request.widthPt = 450;
            request.chart = m_window->chartSettings();
            QCOMPARE(m_window->exportTo(request), QString());
            QFile file(request.path);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(c.name));
            const QByteArray bytes = file.readAll();
            switch (c.format) {
            case render::ExportFormat::Svg: {
                QXmlStreamReader xml(bytes);
                while (!xml.atEnd()) xml.readNext();
                QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
                QVERIFY(bytes.contains("<svg"));
                break;
            }
            case render::ExportFormat::Pdf:
                QVERIFY(bytes.startsWith("%PDF-"));
                if (const QString tool = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
                    !tool.isEmpty()) {
                    QProcess p;
                    p.start(tool, {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("72"),
                                   request.path, m_dir->filePath(QStringLiteral("page"))});
                    QVERIFY(p.waitForFinished());
                    QCOMPARE(p.exitCode(), 0);
                    QImage page(m_dir->filePath(QStringLiteral("page-1.png")));
                    QCOMPARE(page.width(), 450);
                }
                break;
            case render::ExportFormat::Png: {
                QImage image;
                QVERIFY(image.loadFromData(bytes, "PNG"));
                QCOMPARE(image.width(), 900); // 450 pt at 144 dpi
                break;
            }
            case render::ExportFormat::Tikz:
                QVERIFY(bytes.contains("\\begin{tikzpicture}"));
                break;
            }
        }
        ExportRequest bad;
        bad.path = QStringLiteral("/nonexistent-dir/chart.svg");
        // Core's message (io.write) in words: what could not be written and why, without the id.
        const QString failed = m_window->exportTo(bad);
        QVERIFY2(failed.contains(QStringLiteral("cannot write '/nonexistent-dir/chart.svg'")),
                 qPrintable(failed));
        QVERIFY(!failed.contains(QStringLiteral("[io.write]")));
    }

    void undoAndRedoEveryEdit() {
        QUndoStack* stack = m_window->document()->undoStack();
        auto* layers =
            qobject_cast<QSpinBox*>(m_window->parameterPanel()->editorFor(QStringLiteral("model.layers")));
        QVERIFY(layers);
        layers->setValue(32);
        layers->setValue(48); // merges with the previous step of the same spin box
        QCOMPARE(stack->count(), 1);
        QComboBox* gpu = m_window->parameterPanel()->gpuCombo();
        gpu->setCurrentIndex(gpu->findData(QStringLiteral("H100-SXM")));
        emit gpu->activated(gpu->currentIndex());
        QCOMPARE(stack->count(), 2);
        QCOMPARE(m_window->document()->project().cluster.peakTflops, 989.0);
        m_window->flushAnalysis();
        const double fast = m_window->runner()->latest()->outcomes[0].prediction.report.iterationUs;
        stack->undo();
        m_window->flushAnalysis();
        QCOMPARE(m_window->document()->project().cluster.peakTflops, 312.0);
        QVERIFY(m_window->runner()->latest()->outcomes[0].prediction.report.iterationUs > fast);
        QCOMPARE(gpu->currentData().toString(), QStringLiteral("A100-80GB"));
        stack->undo();
        QCOMPARE(layers->value(), 24); // the form follows the undo
        stack->redo();
        stack->redo();
        QCOMPARE(m_window->document()->project().model.layers, 48);
        QCOMPARE(m_window->document()->project().cluster.peakTflops, 989.0);
    }

    void saveOpenAndImportSchedule() {
        QVERIFY(
            !m_window->document()->setField(QStringLiteral("parallel.microbatches"), QStringLiteral("12")));
        const QString path = m_dir->filePath(QStringLiteral("p.stagecraft.json"));
        QVERIFY(m_window->saveTo(path));
        QVERIFY(!m_window->document()->isModified());
        QVERIFY(m_window->windowTitle().startsWith(QStringLiteral("p.stagecraft.json")));
        m_window->newProject();
        QCOMPARE(m_window->document()->project(), defaultProject());
        QCOMPARE(m_window->openPath(path), QString());
        QCOMPARE(m_window->document()->project().parallel.microbatches, 12);

        // A torch CSV schedule shows like a registered one.
        const QString csv = m_dir->filePath(QStringLiteral("mine.csv"));
        writeScheduleFile(generateSchedule("1f1b", ScheduleParams{4, 8, 1}), csv.toStdString());
        QCOMPARE(m_window->openPath(csv), QString());
        m_window->flushAnalysis();
        const int row = m_window->schedulePicker()->model()->rowOf(QStringLiteral("mine.csv"));
        QVERIFY(row >= 0);
        const auto& result = m_window->runner()->latest();
        QCOMPARE(result->outcomes.back().name, std::string("mine.csv"));
        QVERIFY(panelsOf(m_window->ganttView()->scene()).count(int(result->outcomes.size()) - 1));
        QVERIFY(m_window->openPath(m_dir->filePath(QStringLiteral("missing.stagecraft.json")))
                    .contains(QStringLiteral("missing")));

        // A schedule on another number of devices is evaluated on its own pipeline (core's
        // projectForSchedule); the project, and the registered schedules next to it, keep pp.
        const QString torch =
            QStringLiteral(STAGECRAFT_SOURCE_DIR "/tests/data/torch-csv/zb1p_2rank_2stagep_compute.csv");
        QVERIFY(QFile::exists(torch));
        QCOMPARE(m_window->openPath(torch), QString());
        m_window->flushAnalysis();
        QCOMPARE(m_window->document()->project().parallel.pp, 4);
        const auto& latest = m_window->runner()->latest();
        QCOMPARE(latest->outcomes.back().name, std::string("zb1p_2rank_2stagep_compute.csv"));
        QCOMPARE(latest->outcomes.back().prediction.schedule.devices, 2);
        QCOMPARE(latest->outcomes.front().prediction.schedule.devices, 4);
    }

    void dropOpensFiles() {
        Project project = m_window->document()->project();
        project.parallel.microbatches = 24;
        const QString path = m_dir->filePath(QStringLiteral("dropped.stagecraft.json"));
        writeProject(project, path.toStdString());
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(m_window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(m_window.get(), &drop);
        QCOMPARE(m_window->document()->project().parallel.microbatches, 24);
        QCOMPARE(m_window->document()->filePath(), path);
    }

    void exportDialogBuildsTheRequest() {
        ExportDialog dialog(m_window->chartSettings());
        dialog.setPath(m_dir->filePath(QStringLiteral("fig.pdf")));
        ExportRequest request = dialog.request();
        QCOMPARE(request.file.format, render::ExportFormat::Pdf);
        QVERIFY(std::abs(request.widthPt - toPoints(170, SizeUnit::Millimetre)) < 0.1); // default 170 mm
        auto* unit = dialog.findChildren<QComboBox*>().at(1); // format, unit, palette
        unit->setCurrentIndex(1);                             // pt: the physical size stays
        QVERIFY(std::abs(dialog.request().widthPt - request.widthPt) < 0.2);
        dialog.setPath(m_dir->filePath(QStringLiteral("fig.png")));
        QCOMPARE(dialog.request().file.format, render::ExportFormat::Png);
        QCOMPARE(m_window->exportTo(dialog.request()), QString());
        QVERIFY(QImage(m_dir->filePath(QStringLiteral("fig.png"))).width() > 1000);
    }

    void zoomPanHoverAndClick() {
        GanttView* view = m_window->ganttView();
        QCOMPARE(view->zoom(), 1.0);
        view->setFocus();
        QTest::keyClick(view, Qt::Key_Plus);
        QVERIFY(view->zoom() > 1.0);
        QTest::keyClick(view, Qt::Key_Right);
        QVERIFY(view->horizontalScrollBar()->value() > 0);
        QTest::keyClick(view, Qt::Key_F);
        QCOMPARE(view->zoom(), 1.0);
        QCOMPARE(view->horizontalScrollBar()->value(), 0);

        // Hover and click the F of micro-batch 0 on stage 1 of the first schedule.
        const auto& result = view->result();
        const auto& events = result->outcomes[0].prediction.timeline.events;
        int target = -1;
        for (const SceneRect& r : view->scene().rects) {
            if (!isEventBar(r) || r.panel != 0) continue;
            const TimelineEvent& e = events[std::size_t(r.event)];
            if (e.lane == Lane::Compute && e.op.kind == OpKind::F && e.op.mb == 0 && e.op.stage == 1) {
                target = r.event;
                const QPoint pos = view->fromScene(QPointF(r.x + r.w / 2, r.y + r.h / 2)).toPoint();
                QVERIFY2(view->toolTipAt(pos).contains(QStringLiteral("1F0 · device 1")),
                         qPrintable(view->toolTipAt(pos)));
                QVERIFY2(view->toolTipAt(pos).contains(QStringLiteral("memory after: ")),
                         qPrintable(view->toolTipAt(pos)));
                QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, pos);
                break;
            }
        }
        QVERIFY(target >= 0);
        QVERIFY(view->selection());
        QCOMPARE(view->selection()->second, target);
        QCOMPARE(view->producerEvents().size(), std::size_t(1)); // F0 on stage 0
        QVERIFY(!view->consumerEvents().empty());
    }

    void criticalPathAndIdleCausesOverlays() {
        GanttView* view = m_window->ganttView();
        auto* critical = m_window->findChild<QAction*>(QStringLiteral("criticalPathAction"));
        auto* idle = m_window->findChild<QAction*>(QStringLiteral("idleCausesAction"));
        QVERIFY(critical && idle);
        QVERIFY(!view->showCriticalPath());
        view->setFocus();
        QTest::keyClick(view, Qt::Key_C); // the shortcut
        QVERIFY(critical->isChecked());
        QVERIFY(view->showCriticalPath());
        view->viewport()->repaint();
        const auto& result = view->result();
        std::size_t pathBars = 0;
        for (std::size_t panel = 0; panel < result->outcomes.size(); ++panel) {
            const auto& events = result->outcomes[panel].prediction.timeline.events;
            const auto& path = view->criticalPathEvents(int(panel));
            QVERIFY(!path.empty());
            double lastEnd = 0;
            for (const TimelineEvent& e : events)
                if (e.lane == Lane::Compute) lastEnd = std::max(lastEnd, e.end);
            QCOMPARE(events[path.front()].start, 0.0);
            QCOMPARE(events[path.back()].end, lastEnd);
            pathBars += path.size();
        }
        QVERIFY(view->lastPaintCriticalBars() > 0);
        QVERIFY(view->lastPaintCriticalBars() <= pathBars);
        critical->trigger();
        QVERIFY(!view->showCriticalPath());
        view->viewport()->repaint();
        QCOMPARE(view->lastPaintCriticalBars(), std::size_t(0));

        idle->trigger();
        QVERIFY(view->showIdleCauses());
        view->viewport()->repaint();
        QVERIFY(view->lastPaintIdleGaps() > 0);
        // Hover the widest gap a device spends waiting on another one.
        const auto& events = result->outcomes[0].prediction.timeline.events;
        const IdleInterval* widest = nullptr;
        for (const IdleInterval& iv : view->idleGaps(0))
            if (iv.cause == IdleCause::WaitingOn && (!widest || iv.duration() > widest->duration()))
                widest = &iv;
        QVERIFY(widest);
        const QRectF gap = view->idleRect(0, *widest);
        QVERIFY(gap.width() * view->pixelsPerPoint() > 2);
        const QString tip = view->toolTipAt(view->fromScene(gap.center()).toPoint());
        const QString expected =
            QStringLiteral("waiting on D%1 for %2")
                .arg(widest->waitingOnDevice)
                .arg(QString::fromStdString(opName(events[std::size_t(widest->producer)].op, false)));
        QVERIFY2(tip.contains(expected), qPrintable(tip + " / " + expected));
        idle->trigger();
        view->viewport()->repaint();
        QCOMPARE(view->lastPaintIdleGaps(), std::size_t(0));
        QVERIFY(view->toolTipAt(view->fromScene(gap.center()).toPoint()).isEmpty());
    }

    void bigSchedulesRunOnAWorkerAndFoldWhenDrawn() {
        Project big = defaultProject();
        big.parallel.microbatches = 2048;
        big.parallel.pp = 8;
        big.parallel.dp = 1;
        big.schedules = {"1f1b"};
        m_window->document()->applyProject(big, QStringLiteral("big"));
        m_window->flushAnalysis();
        GanttView* view = m_window->ganttView();
        QVERIFY(barCount(view->scene()) > 4000); // the big chart the old view folded above 4,000 bars
        view->viewport()->repaint();
        QVERIFY(view->lastPaintFolded());
        QVERIFY(view->lastPaintItems() < std::size_t(barCount(view->scene())) / 4);
    }

    void aBigResultArrivesReadyToShow() {
        // Issue 26: what is proportional to the ops of a worker's result (the chart's rows, the
        // memory curves) is built on the worker; the window only takes it. At two sizes, 8x apart,
        // the window builds nothing of either and draws at most four memory points per column.
        m_window->runner()->setWorkerThreshold(0);
        GanttView* view = m_window->ganttView();
        MemoryPanel* memory = m_window->memoryPanel();
        for (const int m : {1024, 8192}) {
            Project big = defaultProject();
            big.parallel.microbatches = m;
            big.parallel.pp = 8;
            big.parallel.dp = 1;
            big.schedules = {"1f1b"};
            const std::size_t chartsBefore = view->chartsBuiltHere();
            const std::size_t thinnedBefore = memory->curvePointsThinnedHere();
            const QPointer<QChart> previousChart = memory->chart();
            m_window->document()->applyProject(big, QStringLiteral("big"));
            m_window->flushAnalysis();
            // The memory panel's replaced chart is deleted, not only released by its view.
            QVERIFY(memory->chart() != previousChart.data());
            QVERIFY(previousChart.isNull());
            QVERIFY(m_window->runner()->latest()->opCount >= std::size_t(2 * 8 * m));
            QCOMPARE(view->chartsBuiltHere(), chartsBefore);
            QCOMPARE(memory->curvePointsThinnedHere(), thinnedBefore);
            QVERIFY(view->chartRows().eventCount() >= std::size_t(2 * 8 * m));
            qsizetype most = 0;
            for (QAbstractSeries* s : memory->chart()->series())
                if (auto* line = qobject_cast<QLineSeries*>(s))
                    most = std::max(most, qsizetype(line->count()));
            QVERIFY(most >= 4);
            QVERIFY(most <= 4 * kMemoryColumns + 1); // the old thinning drew 6,000 at m = 8,192
        }
    }

    void theScreenAtFitIsTheExportedChart() {
        // The windowed model at fit, nothing folded, draws the export's bars at the export's
        // places; and hovering the middle of each bar wide enough to see finds that very bar.
        GanttView* view = m_window->ganttView();
        QCOMPARE(view->zoom(), 1.0);
        const Scene& scene = view->scene();
        ChartWindow window;
        window.mapping = view->mapping();
        window.x1 = view->frame().width;
        window.y1 = view->frame().height;
        window.minPx = 1e-9;
        Scene windowed;
        view->chartRows().appendVisible(windowed, view->frame(), window);
        using Key = std::tuple<int, int, double, double, double, double>;
        std::multiset<Key> exported, shown;
        for (const SceneRect& r : scene.rects)
            if (isEventBar(r)) exported.insert({r.panel, r.event, r.x, r.y, r.w, r.h});
        for (const SceneRect& r : windowed.rects)
            if (isEventBar(r)) shown.insert({r.panel, r.event, r.x, r.y, r.w, r.h});
        QVERIFY(exported.size() > 100);
        QVERIFY(shown == exported);
        int hovered = 0;
        for (const SceneRect& r : scene.rects) {
            if (!isEventBar(r) || r.w * view->pixelsPerPoint() < 4) continue;
            const QPointF centre = view->fromScene(QPointF(r.x + r.w / 2, r.y + r.h / 2));
            if (centre.y() < 0 || centre.y() >= view->viewport()->height()) continue;
            const auto hit = view->eventAt(centre.toPoint());
            QVERIFY(hit);
            QCOMPARE(hit->panel, r.panel);
            QCOMPARE(hit->event, r.event);
            ++hovered;
        }
        QVERIFY(hovered > 50);
    }

    void wheelZoomKeepsTheBarUnderTheCursor() {
        GanttView* view = m_window->ganttView();
        const QPoint at(view->viewport()->width() * 2 / 3, 0);
        // A bar in the first row under x = 2/3 of the width.
        const ChartFrameRow& row = view->frame().rows.front();
        const QPoint cursor(at.x(),
                            int(view->fromScene(QPointF(0, row.y + view->frame().rowHeight / 2)).y()));
        const auto before = view->eventAt(cursor);
        QVERIFY(before);
        const double timeBefore = view->mapping().xToTime(cursor.x() / view->pixelsPerPoint());
        auto wheel = [&](int delta) {
            QWheelEvent event(cursor, view->viewport()->mapToGlobal(cursor), QPoint(), QPoint(0, delta),
                              Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(view->viewport(), &event);
        };
        double zoom = view->zoom();
        for (int i = 0; i < 12; ++i) {
            wheel(120);
            QVERIFY(view->zoom() > zoom);
            zoom = view->zoom();
            const auto hit = view->eventAt(cursor);
            QVERIFY(hit);
            QCOMPARE(hit->event, before->event);
            QVERIFY(std::abs(view->mapping().xToTime(cursor.x() / view->pixelsPerPoint()) - timeBefore) <
                    1e-9 * std::max(1.0, timeBefore));
            view->viewport()->repaint();
        }
        QVERIFY(view->horizontalScrollBar()->value() > 0);
        for (int i = 0; i < 12; ++i) wheel(-120);
        QCOMPARE(view->zoom(), 1.0);
        QCOMPARE(view->horizontalScrollBar()->value(), 0);
        wheel(-120); // not below fit
        QCOMPARE(view->zoom(), 1.0);
    }

    void rubberBandAndDragMoveTheWindow() {
        GanttView* view = m_window->ganttView();
        const double k = view->pixelsPerPoint();
        const int x0 = int((view->frame().plotLeft + 40) * k), x1 = x0 + 150;
        const double t0 = view->mapping().xToTime(x0 / k), t1 = view->mapping().xToTime(x1 / k);
        QTest::mousePress(view->viewport(), Qt::LeftButton, Qt::ShiftModifier, QPoint(x0, 40));
        QTest::mouseMove(view->viewport(), QPoint(x1, 60));
        QTest::mouseRelease(view->viewport(), Qt::LeftButton, Qt::ShiftModifier, QPoint(x1, 60));
        // The band's times fill the plot.
        const ChartFrame& frame = view->frame();
        QVERIFY(std::abs(view->mapping().xToTime(frame.plotLeft) - t0) < 1e-9 * t1);
        QVERIFY(std::abs(view->mapping().xToTime(frame.plotLeft + frame.plotWidth) - t1) < 1e-9 * t1);
        QVERIFY(view->zoom() > 4);
        QVERIFY(!view->selection()); // a band is not a click
        // What it looks like, with both overlays (test output, for people to look at).
        view->setShowCriticalPath(true);
        view->setShowIdleCauses(true);
        QVERIFY(view->grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/chart-band-zoom.png")));
        QVERIFY(view->lastPaintCriticalBars() > 0);
        view->setShowCriticalPath(false);
        view->setShowIdleCauses(false);

        // Dragging 100 px to the left shows 100 px later times.
        const double left = view->mapping().originTime;
        const QPoint p(view->viewport()->width() / 2, 40);
        QTest::mousePress(view->viewport(), Qt::LeftButton, {}, p);
        QTest::mouseMove(view->viewport(), p - QPoint(50, 0));
        QTest::mouseMove(view->viewport(), p - QPoint(100, 0));
        QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, p - QPoint(100, 0));
        const double moved = (view->mapping().originTime - left) * view->mapping().pxPerUs * k;
        QVERIFY2(std::abs(moved - 100) < 1e-6, qPrintable(QString::number(moved)));
        QVERIFY(!view->selection()); // a drag is not a click
        // An edit keeps the window: the scale and the time at the left edge.
        const TimeMapping window = view->mapping();
        auto* spin = qobject_cast<QSpinBox*>(
            m_window->parameterPanel()->editorFor(QStringLiteral("parallel.microbatches")));
        spin->setValue(spin->value() + 4);
        m_window->flushAnalysis();
        QCOMPARE(view->mapping().pxPerUs, window.pxPerUs);
        QCOMPARE(view->mapping().originTime, window.originTime);
        // At fit, an edit stays at fit.
        QTest::keyClick(view, Qt::Key_F);
        spin->setValue(spin->value() + 4);
        m_window->flushAnalysis();
        QCOMPARE(view->zoom(), 1.0);
    }

    void slicesOfUnequalCostShowTheirNameAndLength() {
        // Seq1F1B at 32K tokens, k = 4: causal attention makes each slice of an even split dearer
        // than the one before; the hover names the slice ("1F0.3"), the form has the split.
        Project sliced = defaultProject();
        sliced.parallel.pp = 4;
        sliced.parallel.dp = 1;
        sliced.parallel.microbatches = 4;
        sliced.parallel.slices = 4;
        sliced.model.seqLen = 32768;
        sliced.memory.limitGib = 0;
        sliced.schedules = {"seq1f1b"};
        m_window->document()->applyProject(sliced, QStringLiteral("sliced"));
        m_window->flushAnalysis();
        QVERIFY(m_window->parameterPanel()->editorFor(QStringLiteral("parallel.slice_split")));
        QVERIFY(m_window->parameterPanel()->editorFor(QStringLiteral("costs.slice_costs")));
        GanttView* view = m_window->ganttView();
        view->viewport()->repaint();
        const auto& timeline = view->result()->outcomes[0].prediction.timeline;
        // Device 1's four first forwards: micro-batch 0, slices 0..3, each longer than the last.
        std::vector<const TimelineEvent*> forwards;
        for (const TimelineEvent& e : timeline.events)
            if (e.device == 1 && e.lane == Lane::Compute && e.op.kind == OpKind::F && e.op.mb < 4)
                forwards.push_back(&e);
        QCOMPARE(forwards.size(), std::size_t(4));
        for (std::size_t q = 1; q < 4; ++q) QVERIFY(forwards[q]->duration() > forwards[q - 1]->duration());
        const TimelineEvent& last = *forwards[3];
        const ChartFrameRow& row = view->frame().rows[1];
        const double middle = (last.start + last.end) / 2;
        const QPoint p(int(view->mapping().timeToX(middle) * view->pixelsPerPoint()),
                       int(view->fromScene(QPointF(0, row.y + view->frame().rowHeight / 2)).y()));
        QVERIFY2(view->toolTipAt(p).contains(QStringLiteral("<br>1F0.3 · device 1<br>")),
                 qPrintable(view->toolTipAt(p)));
        QVERIFY(
            m_window->grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/seq1f1b-uneven-slices.png")));
    }

    void hoverAndClickDeepInABigChart() {
        Project big = defaultProject();
        big.parallel.microbatches = 2048;
        big.parallel.pp = 8;
        big.parallel.dp = 1;
        big.schedules = {"1f1b"};
        m_window->document()->applyProject(big, QStringLiteral("big"));
        m_window->flushAnalysis();
        GanttView* view = m_window->ganttView();
        view->zoomBy(2000, view->viewport()->width() / 2.0);
        view->viewport()->repaint();
        QVERIFY(!view->lastPaintFolded());
        QVERIFY(view->lastPaintItems() > 8);
        // Hover and click the bar under the middle of row D3.
        const ChartFrameRow& row = view->frame().rows[3];
        const QPoint p(view->viewport()->width() / 2,
                       int(view->fromScene(QPointF(0, row.y + view->frame().rowHeight / 2)).y()));
        const auto hit = view->eventAt(p);
        QVERIFY(hit);
        const auto& events = view->result()->outcomes[0].prediction.timeline.events;
        const TimelineEvent& e = events[std::size_t(hit->event)];
        QCOMPARE(e.device, 3);
        const double t = view->mapping().xToTime(p.x() / view->pixelsPerPoint());
        QVERIFY(e.start <= t + 1e-9 && t <= e.end + 1e-9);
        QVERIFY2(view->toolTipAt(p).contains(QString::fromStdString(eventTitle(
                                                 e, view->result()->outcomes[0].prediction.timeline.shape)) +
                                             QStringLiteral(" · device 3")),
                 qPrintable(view->toolTipAt(p)));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, p);
        QVERIFY(view->selection());
        QCOMPARE(view->selection()->second, hit->event);
        QVERIFY(!view->producerEvents().empty());
        QVERIFY(view->grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/chart-deep-zoom.png")));
        // Left of the plot (row labels) nothing is hit.
        QVERIFY(!view->eventAt(QPoint(2, p.y())));
        // The deepest zoom is core's (ChartView), the viewer's too; there the axis is longer in
        // pixels than an int counts, and the scroll bar still moves the view both ways.
        view->zoomBy(1e12, view->viewport()->width() / 2.0);
        QCOMPARE(view->zoom(), kChartMaxZoom);
        QScrollBar* bar = view->horizontalScrollBar();
        QVERIFY(bar->maximum() > 0);
        bar->setValue(bar->maximum());
        const ChartFrame& frame = view->frame();
        QVERIFY(std::abs(view->mapping().xToTime(frame.plotLeft + frame.plotWidth) - frame.timeEnd) <
                1e-6 * frame.timeEnd);
        bar->setValue(0);
        QCOMPARE(view->mapping().originTime, 0.0);
    }

    void searchRunsInTheBackgroundAndOpensAResult() {
        const QString sample = QStringLiteral(STAGECRAFT_SOURCE_DIR "/samples/bfpp-6.6b.stagecraft.json");
        QCOMPARE(m_window->openPath(sample), QString());
        m_window->flushAnalysis();
        SearchPanel* panel = m_window->searchPanel();
        QVERIFY(panel);
        panel->batchField()->setText(QStringLiteral("1"));
        panel->schedulesField()->setText(QStringLiteral("1f1b,breadth-first"));
        QSignalSpy done(panel, &SearchPanel::finished);
        panel->start();
        QVERIFY(done.count() == 1 || done.wait(120000));
        QVERIFY(panel->result());
        QCOMPARE(panel->table()->rowCount(), 2); // the best of each schedule at one batch size
        panel->resize(1100, 380);
        QVERIFY(panel->grab().save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/search-panel.png")));
        const std::size_t index = panel->table()->item(0, 0)->data(Qt::UserRole).toULongLong();
        const SearchConfig config = panel->result()->results[index].config;
        const Project before = m_window->document()->project();
        panel->openResult(index);
        const Project& after = m_window->document()->project();
        QCOMPARE(after.parallel.pp, config.pp);
        QCOMPARE(after.parallel.dp, config.dp);
        QCOMPARE(after.parallel.tp, config.tp);
        QCOMPARE(after.parallel.microbatches, config.microbatches);
        QCOMPARE(after.memory.zeroStage, config.zeroStage);
        QVERIFY(std::find(after.schedules.begin(), after.schedules.end(), config.schedule) !=
                after.schedules.end());
        m_window->document()->undoStack()->undo();
        QVERIFY(m_window->document()->project() == before);
        // A bad option is refused in place, without a search.
        panel->batchField()->setText(QStringLiteral("4..1"));
        panel->start();
        QVERIFY(!panel->isRunning());
        // Cancel stops a long search; the panel is ready again.
        panel->batchField()->setText(QStringLiteral("0.25..16"));
        panel->schedulesField()->clear();
        panel->start();
        panel->cancel();
        QVERIFY(done.count() == 2 || done.wait(120000));
        QVERIFY(!panel->isRunning());
    }

    void screenshotOfTheMainWindow() {
        // A sample project of the zero-bubble paper (the default project when samples/ is absent).
        const QString sample = QStringLiteral(STAGECRAFT_SOURCE_DIR "/samples/zb-1.5b.stagecraft.json");
        if (QFile::exists(sample)) QCOMPARE(m_window->openPath(sample), QString());
        m_window->resize(1400, 860);
        m_window->flushAnalysis();
        QTest::qWait(50);
        const QImage shot = m_window->grab().toImage();
        QVERIFY(shot.width() >= 1000);
        // Not blank: a real chart has many colours.
        std::set<QRgb> colors;
        for (int y = 0; y < shot.height(); y += 7)
            for (int x = 0; x < shot.width(); x += 7) colors.insert(shot.pixel(x, y));
        QVERIFY(colors.size() > 50);
        QVERIFY(shot.save(QStringLiteral(STAGECRAFT_TEST_OUTPUT_DIR "/main-window.png")));
        if (qEnvironmentVariableIsSet("STAGECRAFT_UPDATE_SCREENSHOTS"))
            QVERIFY(
                shot.save(QStringLiteral(STAGECRAFT_SOURCE_DIR "/resources/screenshots/main-window.png")));
    }

  private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
