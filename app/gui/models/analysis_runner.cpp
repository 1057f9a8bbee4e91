#include "gui/models/analysis_runner.h"

#include "error.h"
#include "eval/work_estimate.h"
#include "gui/models/memory_curves.h"
#include "gui/models/windowed_chart.h"

#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <utility>

namespace stagecraft::gui {

AnalysisRunner::AnalysisRunner(QObject* parent) : QObject(parent) {
    connect(&m_watcher, &QFutureWatcher<Delivery>::finished, this, &AnalysisRunner::onWorkerFinished);
}

AnalysisRunner::~AnalysisRunner() {
    m_pending.reset();
    if (m_cancel) m_cancel->store(true); // a closing window does not wait for a long analysis
    m_watcher.waitForFinished();
}

void AnalysisRunner::submit(AnalysisRequest request, std::optional<ChartSettings> chart) {
    if (m_watcher.isRunning() || !m_delivered) {
        m_pending = std::move(request); // the running one will be outdated; run only the newest
        m_pendingChart = std::move(chart);
        return;
    }
    if (estimateWork(request).effortOps <= double(m_threshold)) {
        m_latest = std::make_shared<const AnalysisResult>(analyze(request));
        m_latestChart.reset(); // small: the views build what they show themselves
        m_latestMemory.reset();
        emit finished(m_latest);
        return;
    }
    startWorker(std::move(request), std::move(chart));
}

void AnalysisRunner::startWorker(AnalysisRequest request, std::optional<ChartSettings> chart) {
    if (m_delivered) emit busyChanged(true); // not when chaining from a finished worker
    m_delivered = false;
    m_dropResult = false;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    request.cancel = m_cancel;
    const quint64 worker = ++m_worker;
    // Called on the worker thread: post whole-percent changes to this object's thread, where an
    // outdated or cancelled worker's reports are dropped.
    auto lastPercent = std::make_shared<std::atomic<int>>(-1);
    request.progress = [this, worker, lastPercent](double fraction, const std::string& schedule) {
        const int percent = std::clamp(int(fraction * 100), 0, 100);
        if (lastPercent->exchange(percent) == percent) return;
        QMetaObject::invokeMethod(
            this,
            [this, worker, percent, name = QString::fromStdString(schedule)] {
                if (worker == m_worker && !m_delivered && !m_dropResult) emit progress(percent, name);
            },
            Qt::QueuedConnection);
    };
    m_watcher.setFuture(QtConcurrent::run([request = std::move(request), chart = std::move(chart)]() {
        Delivery d;
        d.result = std::make_shared<const AnalysisResult>(analyze(request));
        if (!d.result->cancelled && !d.result->outcomes.empty()) d.memory = prepareMemory(*d.result);
        if (chart && !d.result->cancelled && !d.result->outcomes.empty()) {
            try {
                d.chart = buildWindowedChart(d.result, *chart);
            } catch (const Error&) {
                // The view builds it again on its thread and shows the layout's message.
            }
        }
        return d;
    }));
}

void AnalysisRunner::onWorkerFinished() {
    if (m_delivered) return; // waitForIdle() already handled this future
    m_delivered = true;
    if (m_dropResult) {
        m_dropResult = false;
        if (m_pending) { // a request made after the cancel runs as usual
            AnalysisRequest next = std::move(*m_pending);
            m_pending.reset();
            submit(std::move(next), std::exchange(m_pendingChart, std::nullopt));
        }
        return;
    }
    Delivery delivery = m_watcher.result();
    if (m_pending) {
        AnalysisRequest next = std::move(*m_pending);
        m_pending.reset();
        std::optional<ChartSettings> chart = std::exchange(m_pendingChart, std::nullopt);
        // The finished result is already outdated; go straight to the newest request.
        if (estimateWork(next).effortOps > double(m_threshold)) {
            m_delivered = false; // still busy: no busyChanged(false) in between
            startWorker(std::move(next), std::move(chart));
            return;
        }
        delivery = {std::make_shared<const AnalysisResult>(analyze(next)), nullptr, nullptr};
    }
    m_latest = std::move(delivery.result);
    m_latestChart = std::move(delivery.chart);
    m_latestMemory = std::move(delivery.memory);
    emit busyChanged(false);
    emit finished(m_latest);
}

void AnalysisRunner::cancel() {
    if (m_delivered || m_dropResult) return;
    m_cancel->store(true);
    m_pending.reset();
    m_pendingChart.reset();
    m_dropResult = true;
    emit busyChanged(false);
    emit cancelled();
}

void AnalysisRunner::waitForIdle() {
    while (!m_delivered) {
        m_watcher.waitForFinished();
        // Deliver the result now (it may start the pending request) rather than through the
        // queued signal.
        onWorkerFinished();
    }
}

} // namespace stagecraft::gui
