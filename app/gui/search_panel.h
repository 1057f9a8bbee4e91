#pragma once
// The Search dock: runs core's configuration search (core/search) for the current project on a
// worker thread, with a progress bar and Cancel, shows the best configuration of each schedule
// and core's search chart, and opens a result in the project when it is double-clicked in the
// table or clicked in the chart. All the work is core's; this only starts, shows and forwards.

#include "project/project.h"
#include "search/search.h"

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>

class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QLabel;

namespace stagecraft::gui {

class ProjectDocument;
class SearchChartView;

class SearchPanel : public QWidget {
    Q_OBJECT
  public:
    explicit SearchPanel(ProjectDocument* document, QWidget* parent = nullptr);
    ~SearchPanel() override;

    /// Start a search of the document's project (batch sizes per GPU and schedules from the fields).
    void start();
    void cancel();
    bool isRunning() const;
    /// The last finished search (nullptr before the first).
    const SearchResult* result() const { return m_result.get(); }
    /// Open result `index` of the last search in the project (one undo step).
    void openResult(std::size_t index);

    QLineEdit* batchField() const { return m_batch; }
    QLineEdit* schedulesField() const { return m_schedules; }
    QTableWidget* table() const { return m_table; }
    /// The line above the results: counts, and the schedules of which nothing fits.
    QString statusText() const;

  signals:
    void finished();
    /// A message for the window's message bar (errors of the options).
    void message(const QString& text);

  private:
    void onFinished();
    void pollProgress();

    ProjectDocument* m_document;
    QLineEdit* m_batch;
    QLineEdit* m_schedules;
    QPushButton* m_start;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_status;
    QTableWidget* m_table;
    SearchChartView* m_chart;
    Project m_searched; ///< the project the last search ran on
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;
    std::shared_ptr<std::atomic<std::size_t>> m_done, m_total;
    QFutureWatcher<std::shared_ptr<SearchResult>> m_watcher;
    std::shared_ptr<const SearchResult> m_result;
    QString m_error;
};

} // namespace stagecraft::gui
