#pragma once
// The main window only wires things together: the document and its undo stack, the analysis
// runner, the chart, the docks, menus and files. Schedule logic lives in core/; state of each
// panel lives in that panel.

#include "eval/chart_composition.h"
#include "gui/models/analysis_runner.h"

#include <QMainWindow>
#include <QTimer>
#include <functional>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QToolButton;

namespace stagecraft::gui {

class Autosave;
class GanttView;
class MemoryPanel;
class MessageBar;
class MetricsPanel;
class OverlayPanel;
class ParameterPanel;
class ProjectDocument;
class ScheduleEditController;
class SchedulePicker;
class SearchPanel;
struct ExportRequest;

struct MainWindowOptions {
    bool offerRecovery = true; ///< ask about crashed sessions' autosaves on start
    bool confirmClose = true;  ///< ask to save unsaved edits on close
    bool restoreGeometry = true;
    QString autosaveDirectory; ///< empty: AppDataLocation/autosave
    /// Asks whether to run a big simulation (the question holds the op count and memory); empty:
    /// a message box. Tests answer it.
    std::function<bool(const QString&)> confirmWork;
    /// Asks where to save (the argument is the proposed path); returns "" to cancel. Empty: a
    /// file dialog. Tests answer it.
    std::function<QString(const QString&)> chooseSavePath;
    /// Asks whether to recover a crashed session's autosave (the question names its time and
    /// file); empty: a message box. Tests answer it.
    std::function<bool(const QString&)> confirmRecovery;
};

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    ProjectDocument* document() const { return m_document; }
    AnalysisRunner* runner() const { return m_runner; }
    GanttView* ganttView() const { return m_gantt; }
    ParameterPanel* parameterPanel() const { return m_parameters; }
    SchedulePicker* schedulePicker() const { return m_picker; }
    MetricsPanel* metricsPanel() const { return m_metrics; }
    MemoryPanel* memoryPanel() const { return m_memory; }
    OverlayPanel* overlayPanel() const { return m_overlay; }
    SearchPanel* searchPanel() const { return m_search; }
    ScheduleEditController* scheduleEditing() const { return m_editing; }
    MessageBar* messageBar() const { return m_messages; }
    Autosave* autosave() const { return m_autosave; }

    /// Open a project, schedule or trace file, telling them apart by content. Returns "" or the
    /// error message (also shown in the message bar).
    QString openPath(const QString& path);
    bool saveTo(const QString& path);
    /// Export the current chart (returns "" or the error message).
    QString exportTo(const ExportRequest& request);
    /// Run any pending recomputation now and wait for it (tests, export).
    void flushAnalysis();
    ChartSettings chartSettings() const { return m_chartSettings; }

  public slots:
    void newProject();
    void open();
    bool save();
    bool saveAs();
    void importSchedule();
    void openTrace();
    void calibrate();
    void exportChart();
    void showShortcuts();

  protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

  private:
    void createDocks();
    struct MenuActions;
    void createActions();
    void createFileMenu(MenuActions& a);
    void createEditMenu(MenuActions& a);
    void createViewMenu(MenuActions& a);
    void createToolsAndHelpMenus();
    void createToolBar(const MenuActions& a);
    void scheduleAnalysis();
    void runAnalysis();
    void onAnalysis(const AnalysisPtr& result);
    /// The current project was not analysed (`reason`: a broken rule, a refused or declined big
    /// input), or "" once it is submitted.
    void setNotAnalysed(const QString& reason);
    /// Grey out the chart, metrics and memory, saying why, while they are not the form's project.
    void updateStaleChart();
    void updateTitle();
    void updateRecentMenu();
    bool maybeSave();
    void offerRecovery();
    /// Give the docked Search about half the window each way (its table and charts need it).
    void giveSearchRoom();
    /// Recover an autosave: the project of its file (when it still reads) with the autosaved
    /// edits on top as one undo step, under the file's name.
    void recover(const QString& autosaveFile);
    void setChartSettings(const ChartSettings& settings);
    /// What an export of `request` draws: the latest analysis, or the project analysed again in
    /// unit time or for a subset of its schedules. Throws stagecraft::Error.
    AnalysisPtr exportResult(const ExportRequest& request);
    QString openTracePath(const QString& path);
    QString openTracePaths(const QStringList& paths);
    QString importSchedulePath(const QString& path);
    /// A trace refused for its shape: offer to give the project the run's pipeline and show it.
    void offerTraceShape(const MeasuredTrace& refused);

    MainWindowOptions m_options;
    ProjectDocument* m_document;
    AnalysisRunner* m_runner;
    Autosave* m_autosave = nullptr;
    GanttView* m_gantt = nullptr;
    MessageBar* m_messages = nullptr;
    ParameterPanel* m_parameters = nullptr;
    SchedulePicker* m_picker = nullptr;
    MetricsPanel* m_metrics = nullptr;
    MemoryPanel* m_memory = nullptr;
    OverlayPanel* m_overlay = nullptr;
    QDockWidget* m_overlayDock = nullptr;
    SearchPanel* m_search = nullptr;
    ScheduleEditController* m_editing = nullptr;
    QDockWidget* m_searchDock = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QComboBox* m_paletteCombo = nullptr;
    QLabel* m_statusLabel = nullptr;
    QProgressBar* m_busy = nullptr;
    QToolButton* m_cancel = nullptr;
    QString m_traceCheckedSchedule; ///< checked because a trace of it was opened; unchecked if refused
    QTimer m_analysisTimer;
    ChartSettings m_chartSettings;
    bool m_traceJustOpened = false;
    QString m_notAnalysed; ///< why the form's project has no analysis; "" when it has one
};

} // namespace stagecraft::gui
