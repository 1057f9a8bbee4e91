#include "gui/models/analysis_runner.h"

#include "eval/work_estimate.h"

#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

namespace stagecraft::gui {

AnalysisRunner::AnalysisRunner(QObject* parent) : QObject(parent) {
    connect(&m_watcher, &QFutureWatcher<AnalysisPtr>::finished, this, &AnalysisRunner::onWorkerFinished);
}

AnalysisRunner::~AnalysisRunner() {
    m_pending.reset();
    if (m_cancel) m_cancel->store(true); // a closing window does not wait for a long analysis
    m_watcher.waitForFinished();
}

void AnalysisRunner::submit(AnalysisRequest request) {
    if (m_watcher.isRunning() || !m_delivered) {
        m_pending = std::move(request); // the running one will be outdated; run only the newest
        return;
    }
    if (estimateWork(request).effortOps <= double(m_threshold)) {
        m_latest = std::make_shared<const AnalysisResult>(analyze(request));
        emit finished(m_latest);
        return;
    }
    startWorker(std::move(request));
}

void AnalysisRunner::startWorker(AnalysisRequest request) {
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
    m_watcher.setFuture(QtConcurrent::run([request = std::move(request)]() -> AnalysisPtr {
        return std::make_shared<const AnalysisResult>(analyze(request));
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
            submit(std::move(next));
        }
        return;
    }
    AnalysisPtr result = m_watcher.result();
    if (m_pending) {
        AnalysisRequest next = std::move(*m_pending);
        m_pending.reset();
        // The finished result is already outdated; go straight to the newest request.
        if (estimateWork(next).effortOps > double(m_threshold)) {
            m_delivered = false; // still busy: no busyChanged(false) in between
            startWorker(std::move(next));
            return;
        }
        result = std::make_shared<const AnalysisResult>(analyze(next));
    }
    m_latest = result;
    emit busyChanged(false);
    emit finished(m_latest);
}

void AnalysisRunner::cancel() {
    if (m_delivered || m_dropResult) return;
    m_cancel->store(true);
    m_pending.reset();
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
