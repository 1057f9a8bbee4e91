// Design by Hand's drag in the real window (issue 24): one drag step is the pointer moving into
// another gap of the dragged op's device row, to the repainted chart. In that step the editor
// tries the gap (core's move, its re-timing and its inverse), the order it makes is analysed, and
// the chart's rows, the Metrics table and the memory curves are rebuilt from it (the live
// preview, ScheduleEditController::preview); then the chart is painted. ZB-H1 under unit costs at
// p = 8, m = 32 (768 ops a schedule; issue 24's target 16 ms) and p = 32, m = 256 (24,576 ops;
// target 50 ms), zoomed in until an op is 12 pixels wide. Each iteration is timed by itself and
// the median reported (median_ms). BM_DragStepParts times the parts of the same step one by one.
// Run: ./build/bench/edit_drag_bench (QT_QPA_PLATFORM=offscreen is set when no platform is).
#include "bench_counters.h"
#include "gui/gantt_view.h"
#include "gui/main_window.h"
#include "gui/models/project_document.h"
#include "gui/models/schedule_edit_preview.h"
#include "gui/models/schedule_edit_session.h"
#include "gui/panels.h"
#include "gui/schedule_edit_controller.h"
#include "gui/schedule_edit_drag.h"

#include <QApplication>
#include <QMouseEvent>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QWindow>
#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <vector>

namespace {

using namespace stagecraft;
using namespace stagecraft::gui;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// A shown window designing ZB-H1 at (p, m) by hand, zoomed in on device 0's first W, pressed on
/// it: the drag has begun.
class Drag {
  public:
    Drag(int pp, int m) {
        MainWindowOptions options;
        options.offerRecovery = false;
        options.confirmClose = false;
        options.restoreGeometry = false;
        options.autosaveDirectory = m_dir.filePath(QStringLiteral("autosave"));
        m_window = std::make_unique<MainWindow>(options);
        m_window->resize(1400, 900);
        m_window->show();
        // Painted only once the platform exposes the window.
        for (int i = 0; i < 1000 && !(m_window->windowHandle() && m_window->windowHandle()->isExposed()); ++i)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        if (!m_window->windowHandle()->isExposed()) std::abort();
        Project project = defaultProject();
        project.schedules = {"zb-h1"};
        project.parallel.pp = pp;
        project.parallel.microbatches = m;
        project.model.layers = 2 * pp;
        project.costs.mode = CostMode::Unit;
        m_window->document()->applyProject(project, QStringLiteral("drag"));
        m_window->flushAnalysis();
        if (!editing()->begin(QStringLiteral("zb-h1")).isEmpty()) std::abort();
        m_window->flushAnalysis();
        // Device 0 runs its p warm-up forwards, its first I, then its first W: that W is dragged
        // over the ops after it, every gap valid.
        const auto& order = editing()->session()->editor().schedule().order[0];
        m_dragged = order[std::size_t(pp) + 1];
        GanttView* view = m_window->ganttView();
        while (box(m_dragged).width() * view->pixelsPerPoint() < 12) view->zoomIn();
        view->revealEvent(panel(), event(m_dragged));
        view->clearSelection();
        for (int k = 1; k <= 4; ++k) {
            const QRectF next = box(order[std::size_t(pp) + 1 + std::size_t(k)]);
            m_gaps.push_back(toViewport(QPointF(next.right() - 1, next.center().y())));
        }
        const QPoint from = toViewport(box(m_dragged).center());
        send(QEvent::MouseButtonPress, from, Qt::LeftButton);
        send(QEvent::MouseMove, from + QPoint(4, 0), Qt::NoButton);
    }
    ~Drag() {
        send(QEvent::MouseButtonRelease, m_gaps.front(), Qt::LeftButton);
        m_window->flushAnalysis();
    }

    /// The pointer into gap `k` (of 4), then the chart repainted.
    void step(int k) {
        send(QEvent::MouseMove, m_gaps[std::size_t(k) % m_gaps.size()], Qt::NoButton);
        m_window->ganttView()->viewport()->repaint();
    }
    ScheduleEditController* editing() const { return m_window->scheduleEditing(); }
    MainWindow* window() const { return m_window.get(); }
    const Op& dragged() const { return m_dragged; }
    int panel() const { return editing()->editedPanel(m_window->runner()->latest()); }

  private:
    QRectF box(const Op& op) const { return m_window->ganttView()->eventBox(panel(), event(op)); }
    int event(const Op& op) const {
        return computeEventOf(
            m_window->ganttView()->result()->outcomes[std::size_t(panel())].prediction.timeline, op);
    }
    QPoint toViewport(const QPointF& p) const {
        GanttView* view = m_window->ganttView();
        const double k = view->pixelsPerPoint();
        return QPoint(int(p.x() * k), int(p.y() * k) - view->verticalScrollBar()->value());
    }
    void send(QEvent::Type type, QPoint pos, Qt::MouseButton button) {
        QWidget* viewport = m_window->ganttView()->viewport();
        QMouseEvent event(type, QPointF(pos), viewport->mapToGlobal(QPointF(pos)), button,
                          type == QEvent::MouseButtonRelease ? Qt::NoButton
                                                             : Qt::MouseButtons(Qt::LeftButton),
                          Qt::NoModifier);
        QCoreApplication::sendEvent(viewport, &event);
    }

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    Op m_dragged;
    std::vector<QPoint> m_gaps;
};

/// The whole step through the window's mouse handling. Args: p, m.
void BM_DragStep(benchmark::State& state) {
    Drag drag(int(state.range(0)), int(state.range(1)));
    const ScheduleEditDrag* editor = drag.editing()->dragEditor();
    std::vector<double> ms;
    int k = 0;
    for (auto _ : state) {
        const int previewed = editor->gapsPreviewed();
        const auto t0 = Clock::now();
        drag.step(k++);
        const double elapsed = msSince(t0);
        if (editor->gapsPreviewed() != previewed + 1) state.SkipWithError("the gap was not previewed");
        state.SetIterationTime(elapsed / 1e3);
        ms.push_back(elapsed);
    }
    bench::reportTimes(state, ms);
    bench::setOpCounters(state, drag.editing()->session()->editor().schedule().opCount());
}
BENCHMARK(BM_DragStep)
    ->Args({8, 32})
    ->Args({32, 256})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(60);

/// The same step's parts, each timed by itself (medians, ms): the editor's trial of the move
/// (apply, re-time, inverse, and the order copied), the analysis of that order and the result
/// put together, the chart's rows rebuilt (GanttView::showPreview), the Metrics table and the
/// memory panel, and the paint.
void BM_DragStepParts(benchmark::State& state) {
    Drag drag(int(state.range(0)), int(state.range(1)));
    MainWindow* window = drag.window();
    ScheduleEditSession* session = drag.editing()->session();
    const AnalysisPtr base = window->runner()->latest();
    const Project project = window->document()->project();
    std::vector<double> trial, analysis, chart, panels, paint;
    const std::vector<Op>& order = session->editor().schedule().order[0];
    const OpRef at = session->editor().find(drag.dragged());
    int k = 0;
    for (auto _ : state) {
        Edit edit;
        edit.op = drag.dragged();
        edit.anchor = MoveAnchor::After;
        edit.other = order[std::size_t(at.index) + 1 + std::size_t(k++ % 4)];
        auto t0 = Clock::now();
        EditTrial tried = session->trial({edit}, true);
        trial.push_back(msSince(t0));
        if (!tried.edited) state.SkipWithError("the gap breaks the order");
        t0 = Clock::now();
        const AnalysisPtr shown = previewWithEdited(*base, drag.panel(), project, std::move(*tried.edited));
        analysis.push_back(msSince(t0));
        t0 = Clock::now();
        window->ganttView()->showPreview(shown);
        chart.push_back(msSince(t0));
        t0 = Clock::now();
        window->metricsPanel()->setResult(shown);
        window->memoryPanel()->setResult(shown);
        panels.push_back(msSince(t0));
        t0 = Clock::now();
        window->ganttView()->viewport()->repaint();
        paint.push_back(msSince(t0));
    }
    using bench::median;
    state.counters["trial_ms"] = median(trial);
    state.counters["analysis_ms"] = median(analysis);
    state.counters["chart_ms"] = median(chart);
    state.counters["panels_ms"] = median(panels);
    state.counters["paint_ms"] = median(paint);
}
BENCHMARK(BM_DragStepParts)->Args({8, 32})->Args({32, 256})->Unit(benchmark::kMillisecond)->Iterations(30);

} // namespace

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true); // the window's settings never touch the user's
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("StagecraftBench"));
    QCoreApplication::setApplicationName(QStringLiteral("edit-drag-bench"));
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
