#pragma once
// Runs analyze() for the GUI: in place when the work is small (a few thousand ops take
// milliseconds), on a worker thread (QtConcurrent) when it is big, so the UI thread never waits
// on a big schedule. Requests that arrive while a worker runs are coalesced: only the newest
// one runs next, and results of outdated requests are dropped. A worker reports its progress in
// percent and stops within one step of its work when cancelled (core's WorkControl). A worker
// also builds what the window shows of its result in proportion to its ops: the memory panel's
// curves (memory_curves.h) and, given chart settings, the Gantt view's windowed chart
// (windowed_chart.h), so a result of millions of ops reaches the window ready to draw.

#include "eval/chart_composition.h"
#include "eval/evaluation.h"

#include <QFutureWatcher>
#include <QObject>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace stagecraft::gui {

using AnalysisPtr = std::shared_ptr<const AnalysisResult>;
struct WindowedChart;
struct MemoryCurves;
using PreparedMemory = std::vector<MemoryCurves>;

class AnalysisRunner : public QObject {
    Q_OBJECT
  public:
    explicit AnalysisRunner(QObject* parent = nullptr);
    ~AnalysisRunner() override;

    /// Requests whose effort (estimateWork().effortOps: ops, searched orders weighted) is above
    /// this go to a worker.
    void setWorkerThreshold(std::size_t ops) { m_threshold = ops; }
    std::size_t workerThreshold() const { return m_threshold; }

    /// `chart`: the settings under which a worker also builds the windowed chart of its result.
    void submit(AnalysisRequest request, std::optional<ChartSettings> chart = std::nullopt);
    bool isBusy() const { return !m_delivered; }
    /// Stop the running worker (it stops before its next schedule) and drop its result and any
    /// queued request: the last delivered result stays the latest.
    void cancel();
    /// Block until the current worker (and any queued request) is done: tests and shutdown.
    void waitForIdle();

    const AnalysisPtr& latest() const { return m_latest; }
    /// The windowed chart a worker built with the latest result, handed over once (null when the
    /// result was analysed in place, no settings were given, or the build failed).
    std::shared_ptr<WindowedChart> takeLatestChart() { return std::move(m_latestChart); }
    /// The memory curves a worker built with the latest result, handed over once (null when the
    /// result was analysed in place).
    std::shared_ptr<const PreparedMemory> takeLatestMemory() { return std::move(m_latestMemory); }

  signals:
    void finished(const stagecraft::gui::AnalysisPtr& result);
    void busyChanged(bool busy);
    /// The running worker's share of its work done, in whole percent (emitted when it changes),
    /// and the schedule it is on.
    void progress(int percent, const QString& schedule);
    void cancelled();

  private:
    /// What a worker hands back.
    struct Delivery {
        AnalysisPtr result;
        std::shared_ptr<WindowedChart> chart;
        std::shared_ptr<const PreparedMemory> memory;
    };

    void startWorker(AnalysisRequest request, std::optional<ChartSettings> chart);
    void onWorkerFinished();

    std::size_t m_threshold = 60000;
    QFutureWatcher<Delivery> m_watcher;
    std::optional<AnalysisRequest> m_pending;
    std::optional<ChartSettings> m_pendingChart;
    AnalysisPtr m_latest;
    std::shared_ptr<WindowedChart> m_latestChart;
    std::shared_ptr<const PreparedMemory> m_latestMemory;
    bool m_delivered = true;   ///< the current future's result has been handled
    bool m_dropResult = false; ///< the current future was cancelled: its result is not delivered
    std::shared_ptr<std::atomic<bool>> m_cancel; ///< the current worker's cancel flag
    quint64 m_worker = 0; ///< counts workers started: progress of an outdated one is dropped
};

} // namespace stagecraft::gui
