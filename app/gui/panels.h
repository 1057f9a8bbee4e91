#pragma once
// The small docks around the chart. Each owns its widgets and state; MainWindow wires them.
//   SchedulePicker  checkable list of schedules (+ import button)
//   MetricsPanel    sortable metrics table with Copy as CSV
//   MemoryPanel     memory of every device over the iteration (QtCharts) for one schedule
//   OverlayPanel    error figures of a measured trace against its prediction
//   MessageBar      a dismissable line for errors and notices above the chart (never modal)

#include "gui/models/analysis_runner.h"
#include "gui/models/memory_curves.h"

#include <QFrame>
#include <QWidget>
#include <functional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QListView;
class QTableView;
class QSortFilterProxyModel;
class QChartView;
class QChart;
class QPushButton;
class QToolButton;

class QTreeWidget;

namespace stagecraft::gui {

class ProjectDocument;
class ScheduleListModel;
class MetricsModel;

class SchedulePicker : public QWidget {
    Q_OBJECT
  public:
    explicit SchedulePicker(ProjectDocument* document, QWidget* parent = nullptr);
    ScheduleListModel* model() const { return m_model; }
    QListView* view() const { return m_view; }
  signals:
    void importRequested();

  private:
    ScheduleListModel* m_model;
    QListView* m_view;
};

class MetricsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit MetricsPanel(QWidget* parent = nullptr);
    void setResult(AnalysisPtr result);
    MetricsModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    /// The table as CSV (sorted as shown; plain numbers, their units in the header); also what
    /// Copy puts on the clipboard.
    QString csv() const;
  public slots:
    void copyCsv();
  signals:
    void scheduleActivated(int outcome);

  private:
    MetricsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
};

class MemoryPanel : public QWidget {
    Q_OBJECT
  public:
    explicit MemoryPanel(QWidget* parent = nullptr);
    /// `prepared`: the result's curves, built with it on the analysis worker (memory_curves.h);
    /// without them they are built here.
    void setResult(AnalysisPtr result, std::shared_ptr<const PreparedMemory> prepared = nullptr);
    void showOutcome(int outcome);
    int outcome() const { return m_outcome; }
    const AnalysisPtr& result() const { return m_result; }
    QChart* chart() const;
    /// Series drawn: one per device, then the limit (when there is one), then the peak marker.
    int seriesCount() const;
    /// Curve points this panel thinned on its own thread (two per op), not the worker: tests
    /// check a large result arrives without any.
    std::size_t curvePointsThinnedHere() const { return m_thinnedHere; }

  private:
    void rebuild();
    AnalysisPtr m_result;
    std::shared_ptr<const PreparedMemory> m_prepared; ///< of m_result's outcomes, or null
    int m_outcome = 0;
    std::size_t m_thinnedHere = 0;
    QChartView* m_view;
    QLabel* m_caption;
};

class OverlayPanel : public QWidget {
    Q_OBJECT
  public:
    explicit OverlayPanel(QWidget* parent = nullptr);
    void setResult(const AnalysisPtr& result, const QString& tracePath);
    QString text() const; ///< everything shown, as plain text (tests)
    /// The list of the ops that drifted most, worst first (tests click its rows).
    QTreeWidget* driftList() const { return m_drift; }
    QTreeWidget* deviceList() const { return m_devices; }
    /// Which of the trace's iterations is shown: `ids` the iterations it holds (TraceInfo's
    /// iterationIds), `shown` the one read, `median` the median over all of them. Hidden for a
    /// trace of one iteration.
    void setIterations(const std::vector<int>& ids, int shown, bool median);
    /// The iteration chooser (tests pick from it).
    QComboBox* iterationBox() const { return m_iteration; }
    /// A trace stagecraft-run wrote predicted itself with `runTiming`: the switch between that
    /// timing (the default, as the CLI's overlay) and the project's own `projectTiming`
    /// (--project-timing). Hidden (empty runTiming) for any other trace, or when both are one.
    void setTimingChoice(const QString& runTiming, const QString& projectTiming, bool useProject);
    /// The switch (tests click it).
    QCheckBox* projectTimingBox() const { return m_projectTiming; }
  signals:
    void closeTraceRequested();
    /// The user chose another iteration of the trace (an id), or the median over them.
    void readingRequested(int iteration, bool median);
    /// The user chose the project's own timing over the run's (or back).
    void projectTimingRequested(bool useProject);
    /// A row of the drift list was activated: show that predicted event of that chart panel.
    void eventActivated(int panel, int event);

  private:
    void fillLists(const AnalysisResult& result);
    QLabel* m_label;
    QWidget* m_iterationRow;
    QComboBox* m_iteration;
    QCheckBox* m_projectTiming;
    QTreeWidget* m_drift;
    QTreeWidget* m_devices;
    QPushButton* m_close;
};

class MessageBar : public QFrame {
    Q_OBJECT
  public:
    enum class Kind { Error, Info };
    /// What a message is about, so that it goes when its cause goes: the analysis replaces or
    /// clears its own messages each time it runs, a file action its own.
    enum class Source { Action, Analysis };
    explicit MessageBar(QWidget* parent = nullptr);
    /// Shows `text`; any action button of the previous message goes with it.
    void showMessage(const QString& text, Kind kind = Kind::Error, Source source = Source::Action);
    /// A button on the message shown that does what the message suggests ("Apply the trace's
    /// shape"); it hides the message when clicked.
    void setAction(const QString& text, std::function<void()> onClick);
    /// Hides the message if it came from `source`.
    void clear(Source source);
    /// The message as a person reads it (plain text, entities resolved).
    QString text() const;
    /// The action button, hidden when the message has none (tests click it).
    QPushButton* actionButton() const { return m_action; }

  private:
    QLabel* m_label;
    QPushButton* m_action;
    std::function<void()> m_onAction;
    Source m_source = Source::Action;
};

} // namespace stagecraft::gui
