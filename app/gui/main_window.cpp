#include "gui/main_window.h"

#include "error.h"
#include "eval/calibration.h"
#include "eval/evaluation_input.h"
#include "eval/trace_shape.h"
#include "eval/work_estimate.h"
#include "generators/registry.h"
#include "gui/chart_export.h"
#include "gui/export_dialog.h"
#include "gui/gantt_view.h"
#include "gui/models/autosave.h"
#include "gui/models/constants.h"
#include "gui/models/format.h"
#include "gui/models/metrics_model.h"
#include "gui/models/project_document.h"
#include "gui/models/release_off_thread.h"
#include "gui/models/settings.h"
#include "gui/panels.h"
#include "gui/parameter_panel.h"
#include "gui/schedule_edit_controller.h"
#include "gui/search_panel.h"
#include "project/field_labels.h"
#include "project/project_json.h"
#include "project/project_validate.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <unistd.h>

// Q_INIT_RESOURCE declares a function in the current namespace: call it from the global one
// (the resources live in a static library, which the linker would otherwise drop).
static void initResources() {
    Q_INIT_RESOURCE(stagecraft);
}

namespace stagecraft::gui {
namespace {

/// Physical memory of this machine (0 when unknown): the big-input guard's bound.
double machineMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && pageSize > 0 ? double(pages) * double(pageSize) : 0.0;
}

/// Where to save a project derived from the one in `path` (a calibration of it): beside it, with
/// `-calibrated` added to its name, so the original is never the proposal.
QString derivedPath(const QString& path, const QString& suffix) {
    if (path.isEmpty()) return {};
    const QFileInfo file(path);
    QString name = file.fileName();
    const QString ending = QLatin1String(constants::kProjectSuffix);
    const QString stem = name.endsWith(ending) ? name.chopped(ending.size()) : file.completeBaseName();
    return file.dir().filePath(stem + suffix + ending);
}

/// What a person reads of an error: core's message (its id, "[schedule_file.extension]", is for
/// docs/errors.md and the CLI, not for the window).
QString errorText(const std::exception& e) {
    if (const auto* error = dynamic_cast<const Error*>(&e)) return QString::fromStdString(error->message());
    return QString::fromUtf8(e.what());
}

} // namespace

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent), m_options(std::move(options)), m_document(new ProjectDocument(this)),
      m_runner(new AnalysisRunner(this)) {
    initResources();
    setWindowIcon(QIcon(QStringLiteral(":/stagecraft/icons/stagecraft.svg")));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    Settings& settings = Settings::instance();
    m_chartSettings.palette = settings.palette().toStdString();
    m_chartSettings.showComm = settings.showComm();
    m_chartSettings.measuredRows =
        parseMeasuredRows(settings.measuredRows().toStdString()).value_or(MeasuredRows::Overlaid);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_messages = new MessageBar(central);
    m_gantt = new GanttView(central);
    m_gantt->setObjectName(constants::kGanttView);
    m_gantt->setSettings(m_chartSettings);
    layout->addWidget(m_messages);
    layout->addWidget(m_gantt, 1);
    setCentralWidget(central);

    createDocks();
    createActions();

    m_statusLabel = new QLabel(this);
    m_busy = new QProgressBar(this);
    m_busy->setObjectName(QStringLiteral("analysisProgress"));
    m_busy->setRange(0, 0); // busy indicator
    m_busy->setMaximumWidth(140);
    m_busy->setTextVisible(false);
    m_busy->hide();
    m_cancel = new QToolButton(this);
    m_cancel->setObjectName(QStringLiteral("cancelAnalysis"));
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Stop this simulation and keep the last chart"));
    m_cancel->hide();
    statusBar()->addPermanentWidget(m_busy);
    statusBar()->addPermanentWidget(m_cancel);
    statusBar()->addPermanentWidget(m_statusLabel);

    m_analysisTimer.setSingleShot(true);
    m_analysisTimer.setInterval(0);
    connect(&m_analysisTimer, &QTimer::timeout, this, &MainWindow::runAnalysis);
    connect(m_document, &ProjectDocument::projectChanged, this, &MainWindow::scheduleAnalysis);
    connect(m_document, &ProjectDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ProjectDocument::projectChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ProjectDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_runner, &AnalysisRunner::finished, this, &MainWindow::onAnalysis);
    connect(m_runner, &AnalysisRunner::busyChanged, this, [this](bool busy) {
        m_busy->setVisible(busy);
        m_cancel->setVisible(busy);
        if (!busy) return;
        m_busy->setRange(0, 0); // busy until the worker's first report
        m_busy->setTextVisible(false);
        m_statusLabel->setText(tr("Simulating…"));
    });
    connect(m_runner, &AnalysisRunner::progress, this, [this](int percent, const QString& schedule) {
        m_busy->setRange(0, 100);
        m_busy->setValue(percent);
        m_busy->setTextVisible(true);
        m_statusLabel->setText(tr("Simulating %1… %2 %").arg(schedule).arg(percent));
    });
    connect(m_cancel, &QToolButton::clicked, m_runner, &AnalysisRunner::cancel);
    connect(m_runner, &AnalysisRunner::cancelled, this, [this] {
        m_messages->showMessage(tr("Simulation cancelled; the chart shows the last finished one."),
                                MessageBar::Kind::Info, MessageBar::Source::Analysis);
        m_statusLabel->setText(tr("Cancelled"));
        setNotAnalysed(tr("its simulation was cancelled"));
    });
    connect(m_gantt, &GanttView::panelActivated, m_memory, &MemoryPanel::showOutcome);
    connect(m_metrics, &MetricsPanel::scheduleActivated, m_memory, &MemoryPanel::showOutcome);
    connect(m_overlay, &OverlayPanel::closeTraceRequested, m_document, &ProjectDocument::clearTrace);
    connect(m_overlay, &OverlayPanel::readingRequested, this, [this](int iteration, bool median) {
        try {
            m_document->setTraceReading(iteration, median);
        } catch (const Error& e) {
            m_messages->showMessage(tr("Cannot read that iteration: %1")
                                        .arg(QString::fromStdString(e.message()))
                                        .toHtmlEscaped());
        }
    });
    connect(m_overlay, &OverlayPanel::projectTimingRequested, m_document, &ProjectDocument::setProjectTiming);
    connect(m_overlay, &OverlayPanel::eventActivated, m_gantt, &GanttView::revealEvent);
    connect(m_search, &SearchPanel::message, this, [this](const QString& text) {
        m_messages->showMessage(text.toHtmlEscaped(), MessageBar::Kind::Info);
    });
    connect(m_parameters, &ParameterPanel::fieldMessage, this,
            [this](const QString&, const QString& message) {
                // The message names the field in the form's words.
                if (!message.isEmpty()) statusBar()->showMessage(tr("Refused: %1").arg(message), 8000);
                updateStaleChart();
            });

    m_autosave = new Autosave(m_document, m_options.autosaveDirectory, this);
    m_autosave->setInterval(settings.autosaveSeconds());
    connect(&settings, &Settings::autosaveSecondsChanged, m_autosave, &Autosave::setInterval);

    resize(1360, 860);
    if (m_options.restoreGeometry) {
        QSettings s;
        restoreGeometry(s.value(constants::kGeometryKey).toByteArray());
        restoreState(s.value(constants::kStateKey).toByteArray());
    }
    updateTitle();
    updateRecentMenu();
    runAnalysis();
    if (m_options.offerRecovery) QTimer::singleShot(0, this, &MainWindow::offerRecovery);
}

MainWindow::~MainWindow() {
    m_runner->waitForIdle();
}

void MainWindow::createDocks() {
    auto dock = [this](const QString& title, const char* name, QWidget* widget, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(QString::fromLatin1(name));
        d->setWidget(widget);
        addDockWidget(area, d);
        return d;
    };
    m_picker = new SchedulePicker(m_document, this);
    m_parameters = new ParameterPanel(m_document, this);
    m_metrics = new MetricsPanel(this);
    m_memory = new MemoryPanel(this);
    m_overlay = new OverlayPanel(this);
    QDockWidget* schedules =
        dock(tr("Schedules"), constants::kSchedulesDock, m_picker, Qt::LeftDockWidgetArea);
    QDockWidget* parameters =
        dock(tr("Parameters"), constants::kParametersDock, m_parameters, Qt::LeftDockWidgetArea);
    QDockWidget* metrics = dock(tr("Metrics"), constants::kMetricsDock, m_metrics, Qt::BottomDockWidgetArea);
    QDockWidget* memory = dock(tr("Memory"), constants::kMemoryDock, m_memory, Qt::BottomDockWidgetArea);
    m_overlayDock = dock(tr("Trace Overlay"), constants::kOverlayDock, m_overlay, Qt::BottomDockWidgetArea);
    m_search = new SearchPanel(m_document, this);
    m_searchDock = dock(tr("Search"), constants::kSearchDock, m_search, Qt::BottomDockWidgetArea);
    splitDockWidget(schedules, parameters, Qt::Vertical);
    splitDockWidget(metrics, memory, Qt::Horizontal);
    tabifyDockWidget(memory, m_overlayDock);
    tabifyDockWidget(memory, m_searchDock);
    memory->raise();
    resizeDocks({schedules, parameters}, {230, 560}, Qt::Vertical);
    resizeDocks({schedules}, {370}, Qt::Horizontal);
    resizeDocks({metrics}, {230}, Qt::Vertical);
    resizeDocks({metrics, memory}, {620, 420}, Qt::Horizontal);
}

/// The actions the main tool bar shows again, made by the menus.
struct MainWindow::MenuActions {
    QAction *newAct = nullptr, *openAct = nullptr, *saveAct = nullptr, *exportAct = nullptr,
            *traceAct = nullptr;
    QAction *undo = nullptr, *redo = nullptr;
    QAction *zoomIn = nullptr, *zoomOut = nullptr, *fit = nullptr, *comm = nullptr, *measuredRows = nullptr,
            *critical = nullptr, *idle = nullptr;
};

void MainWindow::createActions() {
    MenuActions a;
    createFileMenu(a);
    createEditMenu(a);
    createViewMenu(a);
    createToolsAndHelpMenus();
    createToolBar(a);
    connect(&Settings::instance(), &Settings::recentFilesChanged, this, &MainWindow::updateRecentMenu);
}

void MainWindow::createFileMenu(MenuActions& a) {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    const QStyle* s = style();

    a.newAct =
        file->addAction(s->standardIcon(QStyle::SP_FileIcon), tr("&New"), this, &MainWindow::newProject);
    a.newAct->setShortcut(QKeySequence::New);
    a.openAct =
        file->addAction(s->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open…"), this, &MainWindow::open);
    a.openAct->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    a.saveAct =
        file->addAction(s->standardIcon(QStyle::SP_DialogSaveButton), tr("&Save"), this, &MainWindow::save);
    a.saveAct->setShortcut(QKeySequence::Save);
    auto* saveAsAct = file->addAction(tr("Save &As…"), this, &MainWindow::saveAs);
    // Not every platform theme maps QKeySequence::SaveAs (the docs promise Ctrl+Shift+S).
    saveAsAct->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)});
    file->addSeparator();
    auto* importAct = file->addAction(tr("&Import Schedule…"), this, &MainWindow::importSchedule);
    importAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    a.traceAct = file->addAction(tr("Open &Trace…"), this, &MainWindow::openTrace);
    a.traceAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    file->addAction(tr("&Close Trace"), m_document, &ProjectDocument::clearTrace);
    file->addAction(tr("&Calibrate from Trace"), this, &MainWindow::calibrate);
    file->addSeparator();
    a.exportAct = file->addAction(tr("&Export Chart…"), this, &MainWindow::exportChart);
    a.exportAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    a.exportAct->setObjectName(QStringLiteral("exportAction"));
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
}

void MainWindow::createEditMenu(MenuActions& a) {
    const QStyle* s = style();
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    a.undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    a.undo->setShortcut(QKeySequence::Undo);
    a.undo->setIcon(s->standardIcon(QStyle::SP_ArrowBack));
    a.redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    // Not every platform theme maps QKeySequence::Redo to Ctrl+Shift+Z (docs/gui.md promises it).
    QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
    if (!redoKeys.contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)))
        redoKeys << QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z);
    a.redo->setShortcuts(redoKeys);
    a.redo->setIcon(s->standardIcon(QStyle::SP_ArrowForward));
    edit->addAction(a.undo);
    edit->addAction(a.redo);
    edit->addSeparator();
    edit->addAction(tr("Copy Metrics as &CSV"), m_metrics, &MetricsPanel::copyCsv);
    // Design by hand: the edited order is analysed with the project's schedules.
    m_editing = new ScheduleEditController(m_document, m_gantt, m_messages, this);
    m_editing->chooseSavePath = m_options.chooseSavePath;
    m_editing->addActions(edit);
    connect(m_editing, &ScheduleEditController::changed, this, &MainWindow::scheduleAnalysis);
    connect(m_editing, &ScheduleEditController::editingStarted, m_metrics->model(),
            &MetricsModel::setEditedFrom);
    // A drag's live preview: the chart, the Metrics table and the memory curves of the order the
    // hovered gap makes (or, back, of the result the drag began on).
    connect(m_editing, &ScheduleEditController::previewChanged, this,
            [this](const AnalysisPtr& shown, int panel) {
                m_gantt->showPreview(shown);
                m_metrics->setResult(shown);
                m_memory->setResult(shown);
                if (panel >= 0) m_memory->showOutcome(panel);
            });
}

void MainWindow::createViewMenu(MenuActions& a) {
    m_viewMenu = menuBar()->addMenu(tr("&View"));
    a.zoomIn = m_viewMenu->addAction(tr("Zoom &In"), m_gantt, &GanttView::zoomIn);
    a.zoomIn->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    a.zoomOut = m_viewMenu->addAction(tr("Zoom &Out"), m_gantt, &GanttView::zoomOut);
    a.zoomOut->setShortcut(QKeySequence::ZoomOut);
    a.fit = m_viewMenu->addAction(tr("&Fit"), m_gantt, &GanttView::fit);
    a.fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    m_viewMenu->addSeparator();
    a.comm = m_viewMenu->addAction(tr("Show &Communication"));
    a.comm->setCheckable(true);
    a.comm->setChecked(m_chartSettings.showComm);
    connect(a.comm, &QAction::toggled, this, [this](bool on) {
        ChartSettings c = m_chartSettings;
        c.showComm = on;
        Settings::instance().setShowComm(on);
        setChartSettings(c);
    });
    // A measured trace as outlines over its prediction, or each device's measured row under its
    // predicted row (core's composition; the exports draw the same).
    a.measuredRows = m_viewMenu->addAction(tr("Measured &Rows Under Predicted"));
    a.measuredRows->setObjectName(constants::kMeasuredRowsAction);
    a.measuredRows->setCheckable(true);
    a.measuredRows->setChecked(m_chartSettings.measuredRows == MeasuredRows::UnderPredicted);
    a.measuredRows->setShortcut(QKeySequence(Qt::Key_R));
    a.measuredRows->setToolTip(
        tr("Draw an opened trace as each device's measured row under its predicted row, "
           "instead of outlines over the predicted bars (R)"));
    connect(a.measuredRows, &QAction::toggled, this, [this](bool on) {
        ChartSettings c = m_chartSettings;
        c.measuredRows = on ? MeasuredRows::UnderPredicted : MeasuredRows::Overlaid;
        Settings::instance().setMeasuredRows(QString::fromLatin1(measuredRowsName(c.measuredRows)));
        setChartSettings(c);
    });
    a.critical = m_viewMenu->addAction(tr("&Critical Path"));
    a.critical->setObjectName(QStringLiteral("criticalPathAction"));
    a.critical->setCheckable(true);
    a.critical->setShortcut(QKeySequence(Qt::Key_C));
    a.critical->setToolTip(tr("Outline the chain of ops that sets each schedule's iteration time (C)"));
    connect(a.critical, &QAction::toggled, m_gantt, &GanttView::setShowCriticalPath);
    a.idle = m_viewMenu->addAction(tr("Show &Idle Causes"));
    a.idle->setObjectName(QStringLiteral("idleCausesAction"));
    a.idle->setCheckable(true);
    a.idle->setShortcut(QKeySequence(Qt::Key_I));
    a.idle->setToolTip(
        tr("Hatch idle gaps by cause: warmup/cooldown grey, waiting orange, transfer blue (I)"));
    connect(a.idle, &QAction::toggled, m_gantt, &GanttView::setShowIdleCauses);
    m_viewMenu->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>()) m_viewMenu->addAction(d->toggleViewAction());
}

void MainWindow::createToolsAndHelpMenus() {
    QMenu* toolsMenu = menuBar()->addMenu(tr("&Tools"));
    auto* searchAct = toolsMenu->addAction(tr("&Search Configurations…"), this, [this] {
        m_searchDock->show();
        m_searchDock->raise();
        giveSearchRoom();
        m_search->start();
    });
    // Docked, the Search needs room for its table and charts whenever it comes to the front.
    connect(m_searchDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible) QTimer::singleShot(0, this, &MainWindow::giveSearchRoom);
    });
    searchAct->setObjectName(QStringLiteral("searchAction"));
    searchAct->setToolTip(tr("Search pp, dp, tp, micro-batches, chunks, schedule and ZeRO stage for the "
                             "fastest configurations that fit the memory"));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    auto* shortcuts = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    shortcuts->setShortcut(QKeySequence(Qt::Key_F1));
    help->addAction(tr("&About Stagecraft"), this, [this] {
        QMessageBox::about(
            this, tr("About Stagecraft"),
            tr("<b>Stagecraft</b> %1<br>Design, simulate and draw pipeline-parallel training "
               "schedules.<br><br>Wheel or +/− zooms, drag pans, Shift+drag zooms to a range, F "
               "fits; click a bar to see its dependencies.")
                .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::createToolBar(const MenuActions& a) {
    QToolBar* tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    // Files first, Export with them: at 1360 px the end of the bar goes behind its » menu.
    tools->addAction(a.newAct);
    tools->addAction(a.openAct);
    tools->addAction(a.saveAct);
    tools->addAction(a.exportAct);
    tools->addSeparator();
    tools->addAction(a.undo);
    tools->addAction(a.redo);
    tools->addSeparator();
    tools->addAction(a.zoomIn);
    tools->addAction(a.zoomOut);
    tools->addAction(a.fit);
    tools->addSeparator();
    tools->addAction(a.critical);
    tools->addAction(a.idle);
    tools->addSeparator();
    tools->addWidget(new QLabel(tr(" Palette "), tools));
    m_paletteCombo = new QComboBox(tools);
    for (const char* p : {"paper", "slides", "colorblind", "greyscale"})
        m_paletteCombo->addItem(QString::fromLatin1(p));
    m_paletteCombo->setCurrentText(QString::fromStdString(m_chartSettings.palette));
    connect(m_paletteCombo, &QComboBox::currentTextChanged, this, [this](const QString& palette) {
        ChartSettings c = m_chartSettings;
        c.palette = palette.toStdString();
        Settings::instance().setPalette(palette);
        setChartSettings(c);
    });
    tools->addWidget(m_paletteCombo);
    tools->addAction(a.comm);
    tools->addSeparator();
    tools->addAction(a.traceAct);
    tools->addAction(a.measuredRows);
}

void MainWindow::giveSearchRoom() {
    // About half the window each way, unless it is floating or already that big: its table's six
    // columns and its two charts are unreadable at the bottom dock's default 420 x 230 px.
    if (m_searchDock->isFloating() || !m_searchDock->isVisible()) return;
    const int wide = width() * 55 / 100, tall = height() * 45 / 100;
    if (m_searchDock->width() < wide * 9 / 10) resizeDocks({m_searchDock}, {wide}, Qt::Horizontal);
    if (m_searchDock->height() < tall * 9 / 10) resizeDocks({m_searchDock}, {tall}, Qt::Vertical);
}

void MainWindow::showShortcuts() {
    // Built from the actions themselves, so the list is never out of date.
    QString rows;
    for (QMenu* menu : menuBar()->findChildren<QMenu*>()) {
        for (QAction* action : menu->actions()) {
            if (action->shortcuts().isEmpty()) continue;
            QStringList keys;
            for (const QKeySequence& key : action->shortcuts())
                keys << key.toString(QKeySequence::NativeText);
            rows += QStringLiteral("<tr><td>%1</td><td><b>%2</b></td></tr>")
                        .arg(action->text().remove(QLatin1Char('&')).toHtmlEscaped(),
                             keys.join(QStringLiteral(", ")).toHtmlEscaped());
        }
    }
    QMessageBox::information(
        this, tr("Keyboard Shortcuts"),
        tr("<table cellspacing=4>%1</table><p>On the chart: the wheel zooms about the cursor, drag pans, "
           "Shift+drag zooms to a range, F fits, a click selects an op and shows its dependencies.</p>"
           "<p>The user guide is docs/gui.md of the Stagecraft sources; every command and file format "
           "is documented in docs/.</p>")
            .arg(rows));
}

void MainWindow::setChartSettings(const ChartSettings& settings) {
    m_chartSettings = settings;
    m_gantt->setSettings(settings);
}

void MainWindow::updateRecentMenu() {
    m_recentMenu->clear();
    const QStringList files = Settings::instance().recentFiles();
    for (const QString& path : files) {
        m_recentMenu
            ->addAction(QFileInfo(path).fileName(), this,
                        [this, path] {
                            if (maybeSave()) openPath(path);
                        })
            ->setToolTip(path);
    }
    if (!files.isEmpty()) m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("Clear"), &Settings::instance(), &Settings::clearRecentFiles)
        ->setEnabled(!files.isEmpty());
}

void MainWindow::updateTitle() {
    // The file, then the project's own name: a named project is never "Untitled".
    const QString name = QString::fromStdString(m_document->project().name).simplified();
    const QString modified = m_document->isModified() ? QStringLiteral("*") : QString();
    if (m_document->filePath().isEmpty() && !name.isEmpty())
        setWindowTitle(tr("%1%2 (not saved) — Stagecraft").arg(name, modified));
    else if (!name.isEmpty())
        setWindowTitle(tr("%1%2 — %3 — Stagecraft").arg(m_document->displayName(), modified, name));
    else
        setWindowTitle(tr("%1%2 — Stagecraft").arg(m_document->displayName(), modified));
}

void MainWindow::scheduleAnalysis() {
    m_analysisTimer.start();
}

void MainWindow::runAnalysis() {
    m_analysisTimer.stop();
    // A project that breaks a rule keeps the last valid chart; the problems show at their fields.
    const std::vector<FieldProblem> problems = findProjectProblems(m_document->project());
    m_parameters->setProblems(problems);
    if (!problems.empty()) {
        m_messages->showMessage(tr("The parameters break %n rule(s); the chart shows the last valid project. "
                                   "First: %1",
                                   nullptr, int(problems.size()))
                                    .arg(QString::fromStdString(withFieldLabels(problems.front().message)))
                                    .toHtmlEscaped(),
                                MessageBar::Kind::Error, MessageBar::Source::Analysis);
        setNotAnalysed(tr("the parameters break %n rule(s) (see the form)", nullptr, int(problems.size())));
        return;
    }
    AnalysisRequest request = m_document->request();
    if (auto edited = m_editing->imported()) request.imported.push_back(std::move(*edited));
    // Work that would take minutes or exhaust memory (a typo of micro-batches) is refused or
    // confirmed first, with core's figures.
    const WorkDecision work = judgeWork(estimateWork(request), machineMemoryBytes());
    if (work.verdict == WorkVerdict::Refuse) {
        m_messages->showMessage(tr("Not simulated: %1. The chart shows the last valid project.")
                                    .arg(QString::fromStdString(work.message))
                                    .toHtmlEscaped(),
                                MessageBar::Kind::Error, MessageBar::Source::Analysis);
        setNotAnalysed(tr("not simulated: %1").arg(QString::fromStdString(work.message)));
        return;
    }
    if (work.verdict == WorkVerdict::Confirm) {
        const QString question = tr("Simulate anyway? %1.").arg(QString::fromStdString(work.message));
        const bool yes = m_options.confirmWork ? m_options.confirmWork(question)
                                               : QMessageBox::question(this, tr("Large simulation"),
                                                                       question) == QMessageBox::Yes;
        if (!yes) {
            m_messages->showMessage(
                tr("Not simulated (declined): %1.").arg(QString::fromStdString(work.message)).toHtmlEscaped(),
                MessageBar::Kind::Info, MessageBar::Source::Analysis);
            setNotAnalysed(tr("not simulated (declined): %1").arg(QString::fromStdString(work.message)));
            return;
        }
    }
    setNotAnalysed({});
    // A large result comes back with the chart's rows built on the worker, under these settings.
    m_runner->submit(std::move(request), m_gantt->settings());
}

void MainWindow::setNotAnalysed(const QString& reason) {
    m_notAnalysed = reason;
    updateStaleChart();
}

void MainWindow::updateStaleChart() {
    // A chart, metrics and memory that are not the form's project never show as if they were:
    // they are greyed out and the chart says why.
    const QStringList refused = m_parameters->refusedFields();
    QString reason;
    if (!refused.isEmpty())
        reason = tr("Not the form's values: %1 was refused (see the form); the chart shows the last "
                    "accepted project.")
                     .arg(refused.join(QStringLiteral(", ")));
    else if (!m_notAnalysed.isEmpty() && m_runner->latest())
        reason =
            tr("Not the form's project: %1. The chart shows the last simulated project.").arg(m_notAnalysed);
    m_gantt->setStale(reason);
    for (QWidget* panel : {static_cast<QWidget*>(m_metrics), static_cast<QWidget*>(m_memory)}) {
        panel->setEnabled(reason.isEmpty());
        panel->setToolTip(reason);
    }
    // A disabled chart view keeps its colours: wash its chart out like the main one.
    m_memory->chart()->setOpacity(reason.isEmpty() ? 1.0 : 0.35);
}

void MainWindow::flushAnalysis() {
    if (m_analysisTimer.isActive()) runAnalysis();
    m_runner->waitForIdle();
}

void MainWindow::onAnalysis(const AnalysisPtr& result) {
    // Everything below takes its part of the result ready-made (the worker built what grows with
    // the ops) and lets go of the previous result, whose last reference is freed off this thread.
    AnalysisPtr previous = m_gantt->result();
    m_gantt->setResult(result, m_runner->takeLatestChart());
    m_editing->resultShown(result);
    m_metrics->setResult(result);
    m_memory->setResult(result, m_runner->takeLatestMemory());
    const QString tracePath =
        m_document->trace() ? QString::fromStdString(m_document->trace()->path) : QString();
    m_overlay->setResult(result, tracePath);
    if (const auto& trace = m_document->trace()) {
        m_overlay->setIterations(trace->info.iterationIds, trace->info.iteration,
                                 m_document->traceReading().traceMedian);
        // Core's rule (traceTimingTheRequest): a stagecraft-run trace of a shown schedule, whose run
        // used another timing than the project's, and no runtime fit.
        AnalysisRequest asRun = m_document->request();
        asRun.timingFromTrace = true;
        const bool retimes = traceTimingTheRequest(asRun, std::span(&*trace, 1)) != nullptr;
        m_overlay->setTimingChoice(retimes ? QString::fromLatin1(timingName(*traceTiming(*trace)))
                                           : QString(),
                                   QString::fromLatin1(timingName(m_document->project().costs.timing)),
                                   m_document->traceReading().projectTiming);
    }

    QStringList notes;
    for (const ScheduleRefusal& f : result->refusals) {
        // Registered schedules whose parameters break their rules are already greyed out in the
        // picker with the rule; report only the surprising refusals here.
        if (f.stage != RefusalStage::Parameters)
            notes << QStringLiteral("<b>%1</b>: %2")
                         .arg(QString::fromStdString(f.name).toHtmlEscaped(),
                              QString::fromStdString(f.message).toHtmlEscaped());
    }
    if (m_document->trace() && !result->overlay) {
        // A trace that does not match its prediction is refused, with core's reason, and the
        // schedule its opening checked is unchecked again.
        const QString message = tr("Trace refused: %1").arg(QString::fromStdString(result->overlayError));
        if (!m_traceCheckedSchedule.isEmpty()) m_document->setScheduleChecked(m_traceCheckedSchedule, false);
        m_traceCheckedSchedule.clear();
        const MeasuredTrace refused = *m_document->trace();
        m_document->clearTrace();
        m_overlay->setResult(nullptr, {});
        m_messages->showMessage(message.toHtmlEscaped());
        offerTraceShape(refused);
        m_traceJustOpened = false;
    } else if (!notes.isEmpty()) {
        m_messages->showMessage(notes.join(QStringLiteral("<br>")), MessageBar::Kind::Error,
                                MessageBar::Source::Analysis);
    } else {
        // The analysis's own messages go with their cause.
        m_messages->clear(MessageBar::Source::Analysis);
    }
    if (result->overlay) m_traceCheckedSchedule.clear();
    if (result->overlay && m_traceJustOpened) {
        m_overlayDock->show();
        m_overlayDock->raise();
        m_traceJustOpened = false;
    }
    m_statusLabel->setText(tr("%n schedule(s), %1 ops", nullptr, int(result->outcomes.size()))
                               .arg(QLocale().toString(qulonglong(result->opCount))));
    updateStaleChart();
    releaseOffThread(std::move(previous));
}

// ---------------------------------------------------------------- files

bool MainWindow::maybeSave() {
    if (!m_document->isModified() || !m_options.confirmClose) return true;
    const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                             tr("Save the changes to %1?").arg(m_document->displayName()),
                                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::newProject() {
    if (!maybeSave()) return;
    m_document->reset(defaultProject(), QString());
    m_gantt->fit();
}

void MainWindow::open() {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open"), QString(),
                                                      tr("All supported (*.json *.csv);;%1;;%2;;%3")
                                                          .arg(QLatin1String(constants::kProjectFilter),
                                                               QLatin1String(constants::kScheduleFilter),
                                                               QLatin1String(constants::kTraceFilter)));
    if (!path.isEmpty()) openPath(path);
}

QString MainWindow::openPath(const QString& path) {
    // Core's rule, as the viewer opens a file: what its first bytes say, else its name.
    switch (inputKind(path.toStdString())) {
    case InputKind::Schedule:
        return importSchedulePath(path);
    case InputKind::Trace:
        return openTracePath(path);
    case InputKind::Project:
        break;
    }
    try {
        m_document->open(path);
    } catch (const std::exception& e) {
        const QString message = tr("Cannot open %1: %2").arg(path, errorText(e));
        m_messages->showMessage(message.toHtmlEscaped());
        return message;
    }
    Settings::instance().addRecentFile(QFileInfo(path).absoluteFilePath());
    m_messages->hide();
    m_gantt->fit();
    if (isShippedSample(path)) {
        // A shipped sample is a template: Save writes a copy of it elsewhere.
        m_document->proposeSaveAs(userCopyPath(path));
        statusBar()->showMessage(
            tr("Opened the sample %1: it stays as shipped, Save asks where to write your copy")
                .arg(QFileInfo(path).fileName()),
            8000);
    } else {
        statusBar()->showMessage(tr("Opened %1").arg(QFileInfo(path).fileName()), 5000);
    }
    return {};
}

bool MainWindow::save() {
    // A calibrated project is another project, and a shipped sample a read-only template: neither
    // is written over the file it came from without asking.
    if (m_document->filePath().isEmpty() || !m_document->proposedSavePath().isEmpty()) return saveAs();
    return saveTo(m_document->filePath());
}

bool MainWindow::saveAs() {
    QString proposed =
        m_document->proposedSavePath().isEmpty() ? m_document->filePath() : m_document->proposedSavePath();
    // Never propose a file among the shipped samples (a calibrated sample's "-calibrated" copy).
    if (isSampleFolder(QFileInfo(proposed).absolutePath())) proposed = userCopyPath(proposed);
    QString path = m_options.chooseSavePath
                       ? m_options.chooseSavePath(proposed)
                       : QFileDialog::getSaveFileName(this, tr("Save Project"), proposed,
                                                      QLatin1String(constants::kProjectFilter));
    if (path.isEmpty()) return false;
    if (!path.endsWith(QLatin1String(".json"))) path += QLatin1String(constants::kProjectSuffix);
    return saveTo(path);
}

bool MainWindow::saveTo(const QString& path) {
    try {
        m_document->saveAs(path);
    } catch (const std::exception& e) {
        m_messages->showMessage(tr("Cannot save %1: %2").arg(path, errorText(e)).toHtmlEscaped());
        return false;
    }
    Settings::instance().addRecentFile(QFileInfo(path).absoluteFilePath());
    statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 5000);
    return true;
}

void MainWindow::importSchedule() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Import Schedule"), QString(),
                                                      QLatin1String(constants::kScheduleFilter));
    if (!path.isEmpty()) importSchedulePath(path);
}

QString MainWindow::importSchedulePath(const QString& path) {
    try {
        const QString note = m_document->importSchedule(path);
        if (!note.isEmpty()) m_messages->showMessage(note.toHtmlEscaped(), MessageBar::Kind::Info);
    } catch (const std::exception& e) {
        const QString message = tr("Cannot import %1: %2").arg(path, errorText(e));
        m_messages->showMessage(message.toHtmlEscaped());
        return message;
    }
    statusBar()->showMessage(tr("Imported %1").arg(QFileInfo(path).fileName()), 5000);
    return {};
}

void MainWindow::openTrace() {
    // Several files make one run: torch's profiler writes one trace per rank.
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open Trace"), QString(),
                                                            QLatin1String(constants::kTraceFilter));
    if (!paths.isEmpty()) openTracePaths(paths);
}

void MainWindow::calibrate() {
    if (!m_document->trace()) {
        m_messages->showMessage(tr("Open a measured trace first (File ▸ Open Trace), then calibrate."));
        return;
    }
    try {
        const CalibrationReport report = calibrateFromTrace(m_document->request());
        m_document->applyProject(report.project, tr("Calibrate from trace"));
        m_document->proposeSaveAs(derivedPath(m_document->filePath(), QStringLiteral("-calibrated")));
        const QString summary =
            tr("Calibrated %1: the predicted makespan against the run %2% before, %3% after")
                .arg(QString::fromStdString(report.schedule))
                .arg(100 * report.before.makespanError, 0, 'f', 1)
                .arg(100 * report.after.makespanError, 0, 'f', 1);
        statusBar()->showMessage(summary, 10000);
        // What the trace could not measure is said where it is seen, and kept in costs.note.
        const QString rule =
            report.fit.rule.empty()
                ? tr("B and W as measured.")
                : tr("Not in the trace: %1 (costs.note).").arg(QString::fromStdString(report.fit.rule));
        const QString slices = report.fit.sliceRule.empty()
                                   ? QString()
                                   : tr(" Slices: %1.").arg(QString::fromStdString(report.fit.sliceRule));
        // A torch run is also fitted with the runtime model: every schedule is then timed as torch
        // runs it; otherwise the list scheduler prices every schedule from the layer costs.
        const QString timing = report.runtime
                                   ? tr("Every schedule is timed as torch runs it: %1.")
                                         .arg(QString::fromStdString(describeRuntimeFit(*report.runtime)))
                               : report.project.costs.timing == Timing::StagecraftRun
                                   ? tr("Every schedule is timed as stagecraft-run executes it, as the run "
                                        "predicted itself (costs.timing).")
                                   : tr("Costs per range of the model's layers: every schedule whose stages "
                                        "split the layers runs "
                                        "on them.%1")
                                         .arg(report.runtimeRefusal.empty()
                                                  ? QString()
                                                  : tr(" No runtime model: %1")
                                                        .arg(QString::fromStdString(report.runtimeRefusal)));
        m_messages->showMessage(
            tr("%1. %2 %3%4 Save writes a new file.").arg(summary, timing, rule, slices).toHtmlEscaped(),
            MessageBar::Kind::Info);
    } catch (const std::exception& e) {
        m_messages->showMessage(tr("Cannot calibrate: %1").arg(errorText(e)).toHtmlEscaped());
    }
}

void MainWindow::offerTraceShape(const MeasuredTrace& refused) {
    const TraceShapeFit fit = fitTraceShape(m_document->project(), *refused.timeline);
    // Only where the run's pipeline is one a registered schedule produces and the project's is
    // another: otherwise the refusal's reason is something the shape does not fix.
    if (fit.schedules.empty() || scheduleParams(fit.project) == scheduleParams(m_document->project())) return;
    m_messages->setAction(tr("Apply the trace's shape"), [this, fit, refused] {
        Project shaped = fit.project;
        const std::string& schedule = fit.schedules.front();
        if (std::none_of(fit.schedules.begin(), fit.schedules.end(), [&](const std::string& name) {
                return std::find(shaped.schedules.begin(), shaped.schedules.end(), name) !=
                       shaped.schedules.end();
            }))
            shaped.schedules.push_back(schedule);
        m_document->applyProject(shaped, tr("Apply the trace's shape"));
        m_document->setTrace(refused);
        m_traceJustOpened = true;
        statusBar()->showMessage(tr("pp %1, %2 micro-batches, %3 chunks per device from the trace; File ▸ "
                                    "Calibrate from Trace fits the costs")
                                     .arg(shaped.parallel.pp)
                                     .arg(shaped.parallel.microbatches)
                                     .arg(shaped.parallel.chunks),
                                 10000);
    });
}

QString MainWindow::openTracePath(const QString& path) {
    return openTracePaths(QStringList{path});
}

QString MainWindow::openTracePaths(const QStringList& paths) {
    try {
        m_document->openTraces(paths);
    } catch (const std::exception& e) {
        const QString message =
            tr("Cannot open trace %1: %2").arg(paths.join(QStringLiteral(", ")), errorText(e));
        m_messages->showMessage(message.toHtmlEscaped());
        return message;
    }
    // Show the trace's schedule when it is a registered one that is not checked yet.
    const std::string& name = m_document->trace()->timeline->shape.schedule;
    m_traceCheckedSchedule.clear();
    const std::vector<std::string>& shown = m_document->project().schedules;
    if (tryFindGenerator(name) && std::find(shown.begin(), shown.end(), name) == shown.end()) {
        m_traceCheckedSchedule = QString::fromStdString(name);
        m_document->setScheduleChecked(m_traceCheckedSchedule, true);
    }
    m_traceJustOpened = true;
    m_messages->hide();
    return {};
}

AnalysisPtr MainWindow::exportResult(const ExportRequest& request) {
    flushAnalysis();
    AnalysisPtr result = m_runner->latest();
    if (!result) throw ValidationError("export.empty", "schedules", "nothing has been simulated yet");
    if (!request.chart.unitTime && request.allSchedules) return result;
    // The papers' step grid (the same schedules timed with unit costs), or a subset of them.
    AnalysisRequest again = m_document->request();
    if (request.chart.unitTime) applyUnitTime(again);
    if (!request.allSchedules) {
        std::vector<std::string> names;
        for (const QString& name : request.schedules) names.push_back(name.toStdString());
        if (names.empty()) throw ValidationError("export.empty", "schedules", "no schedule chosen to draw");
        keepSchedules(again, names);
    }
    return std::make_shared<const AnalysisResult>(analyze(again));
}

QString MainWindow::exportTo(const ExportRequest& request) {
    try {
        const AnalysisPtr result = exportResult(request);
        gui::exportChart(*result, request);
    } catch (const std::exception& e) {
        const QString message = tr("Export failed: %1").arg(errorText(e));
        m_messages->showMessage(message.toHtmlEscaped());
        return message;
    }
    statusBar()->showMessage(tr("Exported %1").arg(QFileInfo(request.path).fileName()), 5000);
    return {};
}

void MainWindow::exportChart() {
    ExportDialog dialog(m_chartSettings, this);
    QList<QPair<QString, QString>> shown;
    if (const AnalysisPtr latest = m_runner->latest())
        for (const ScheduleOutcome& o : latest->outcomes)
            shown.append({QString::fromStdString(o.name), QString::fromStdString(o.title)});
    dialog.setSchedules(shown);
    dialog.setPreview([this](const ExportRequest& request) {
        try {
            const AnalysisPtr result = exportResult(request);
            return buildChartScene(*result, request.chart, request.widthPt);
        } catch (const std::exception&) {
            return Scene{}; // the export itself says why
        }
    });
    if (dialog.exec() != QDialog::Accepted) return;
    exportTo(dialog.request());
}

void MainWindow::offerRecovery() {
    const QStringList orphans = m_autosave->orphans();
    for (const QString& file : orphans) {
        const QString origin = Autosave::originOf(file);
        const QString question =
            tr("Stagecraft did not exit normally. An autosave of %1 from %2 was found.\n\nRecover it?")
                .arg(origin.isEmpty() ? tr("an untitled project") : QFileInfo(origin).fileName(),
                     QFileInfo(file).lastModified().toString(Qt::TextDate));
        const bool yes = m_options.confirmRecovery
                             ? m_options.confirmRecovery(question)
                             : QMessageBox::question(this, tr("Recover unsaved work?"), question,
                                                     QMessageBox::Yes | QMessageBox::No,
                                                     QMessageBox::Yes) == QMessageBox::Yes;
        if (yes) recover(file);
        Autosave::removeOrphan(file);
        if (yes) break;
    }
}

void MainWindow::recover(const QString& file) {
    const QString origin = Autosave::originOf(file);
    try {
        const Project project = readProject(file.toStdString());
        // Undo goes back to the file as saved; the title keeps its name.
        Project base = m_document->project();
        if (!origin.isEmpty()) {
            try {
                base = readProject(origin.toStdString());
            } catch (const std::exception&) {
                // The file went or changed beyond reading: the recovered edits still carry its name.
            }
        }
        m_document->reset(base, origin);
        m_document->applyProject(project, tr("Recover autosave"));
        if (!origin.isEmpty() && isShippedSample(origin)) m_document->proposeSaveAs(userCopyPath(origin));
        m_gantt->fit();
    } catch (const std::exception& e) {
        m_messages->showMessage(tr("Cannot recover %1: %2").arg(file, errorText(e)).toHtmlEscaped());
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    QSettings s;
    s.setValue(constants::kGeometryKey, saveGeometry());
    s.setValue(constants::kStateKey, saveState());
    m_autosave->discard();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    // Traces dropped together are one run (torch's profiler writes one file per rank).
    QStringList traces;
    for (const QUrl& url : event->mimeData()->urls()) {
        if (!url.isLocalFile()) continue;
        const QString path = url.toLocalFile();
        if (inputKind(path.toStdString()) == InputKind::Trace)
            traces << path;
        else
            openPath(path);
    }
    if (!traces.isEmpty()) openTracePaths(traces);
    event->acceptProposedAction();
}

} // namespace stagecraft::gui
