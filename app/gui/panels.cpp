#include "gui/panels.h"

#include "error.h"
#include "gui/models/format.h"
#include "gui/models/memory_curves.h"
#include "gui/models/metrics_model.h"
#include "gui/models/schedule_list_model.h"
#include "ir/op_name.h"
#include "layout/error_colors.h"
#include "sim/overlay.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QCursor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QListView>
#include <QPushButton>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QToolButton>
#include <QToolTip>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>

namespace stagecraft::gui {

// ---------------------------------------------------------------- SchedulePicker

SchedulePicker::SchedulePicker(ProjectDocument* document, QWidget* parent)
    : QWidget(parent), m_model(new ScheduleListModel(document, this)), m_view(new QListView(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_view->setModel(m_model);
    m_view->setUniformItemSizes(true);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    // Room for every registered schedule without scrolling.
    m_view->setMinimumHeight(m_view->sizeHintForRow(0) * std::min(m_model->rowCount(), 10) +
                             2 * m_view->frameWidth() + 4);
    m_view->setToolTip(tr("Check the schedules to compare; greyed ones do not suit the parameters "
                          "(hover for the rule)"));
    layout->addWidget(m_view);
    auto* import = new QPushButton(tr("Import schedule…"), this);
    import->setToolTip(tr("Add a schedule file (torch pipelining CSV or schedule JSON)"));
    connect(import, &QPushButton::clicked, this, &SchedulePicker::importRequested);
    layout->addWidget(import);
}

// ---------------------------------------------------------------- MetricsPanel

MetricsPanel::MetricsPanel(QWidget* parent)
    : QWidget(parent), m_model(new MetricsModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_view(new QTableView(this)) {
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(MetricsModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // project order until the user sorts
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(MetricsModel::Schedule, QHeaderView::Stretch);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideRight);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* copy = new QAction(tr("Copy as CSV"), m_view);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, &MetricsPanel::copyCsv);
    m_view->addAction(copy);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid()) emit scheduleActivated(m_proxy->mapToSource(current).row());
            });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_view);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    auto* copyButton = new QPushButton(tr("Copy as CSV"), this);
    connect(copyButton, &QPushButton::clicked, this, &MetricsPanel::copyCsv);
    buttons->addWidget(copyButton);
    layout->addLayout(buttons);
}

void MetricsPanel::setResult(AnalysisPtr result) {
    m_model->setResult(std::move(result));
}

QString MetricsPanel::csv() const {
    return modelToCsv(*m_proxy, MetricsModel::CsvRole);
}

void MetricsPanel::copyCsv() {
    QApplication::clipboard()->setText(csv());
}

// ---------------------------------------------------------------- MemoryPanel

namespace {

/// Shows `chart` in `view` and deletes the chart it replaces: QChartView takes the new chart but
/// only releases the old one (Qt's documentation: "users need to make sure the previous chart is
/// deleted"), so every rebuild of a panel would otherwise leak a chart and its series.
void replaceChart(QChartView* view, QChart* chart) {
    QChart* old = view->chart();
    view->setChart(chart);
    delete old;
}

/// Up to this many devices the legend names each line (p = 8 and p = 16 are common); above it,
/// hovering a line names it.
constexpr std::size_t kMaxLegendDevices = 16;

const QColor kDeviceColors[] = {QColor("#4e79a7"), QColor("#f28e2b"), QColor("#59a14f"), QColor("#e15759"),
                                QColor("#76b7b2"), QColor("#edc948"), QColor("#b07aa1"), QColor("#ff9da7"),
                                QColor("#9c755f"), QColor("#bab0ac")};

} // namespace

MemoryPanel::MemoryPanel(QWidget* parent)
    : QWidget(parent), m_view(new QChartView(this)), m_caption(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_caption->setWordWrap(true);
    layout->addWidget(m_caption);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumHeight(160);
    layout->addWidget(m_view, 1);
    rebuild();
}

QChart* MemoryPanel::chart() const {
    return m_view->chart();
}

int MemoryPanel::seriesCount() const {
    return int(m_view->chart()->series().size());
}

void MemoryPanel::setResult(AnalysisPtr result, std::shared_ptr<const PreparedMemory> prepared) {
    m_result = std::move(result);
    m_prepared = std::move(prepared);
    if (m_prepared && (!m_result || m_prepared->size() != m_result->outcomes.size())) m_prepared.reset();
    if (!m_result || m_outcome >= int(m_result->outcomes.size())) m_outcome = 0;
    rebuild();
}

void MemoryPanel::showOutcome(int outcome) {
    if (outcome == m_outcome) return;
    m_outcome = outcome;
    // The chart may name a panel of a result this panel has not been given yet (a schedule added
    // by the same analysis): it is drawn when that result arrives (setResult keeps the choice).
    if (m_result && outcome >= 0 && outcome < int(m_result->outcomes.size())) rebuild();
}

void MemoryPanel::rebuild() {
    auto* chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignRight);
    QFont legendFont = chart->legend()->font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * 0.85);
    chart->legend()->setFont(legendFont);
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->setBackgroundRoundness(0);
    if (!m_result || m_result->outcomes.empty()) {
        m_caption->setText(tr("Memory of each device over one iteration appears here."));
        replaceChart(m_view, chart);
        return;
    }
    const ScheduleOutcome& o = m_result->outcomes[std::size_t(m_outcome)];
    const ScheduleReport& r = o.prediction.report;
    const MemoryReport& memory = r.memory;
    const bool unitless = r.unitless;
    const double scale = memoryValueScale(o);
    const double end = memoryTimeEnd(o);
    // The worker's curves for a large result; a small one's are built here.
    const MemoryCurves curves = m_prepared ? (*m_prepared)[std::size_t(m_outcome)] : buildMemoryCurves(o);
    if (!m_prepared)
        for (const DeviceMemory& d : memory.devices) m_thinnedHere += d.curve.size();
    double top = 0;
    auto* axisX = new QValueAxis;
    axisX->setTitleText(unitless ? tr("time (units)") : tr("time (ms)"));
    auto* axisY = new QValueAxis;
    axisY->setTitleText(unitless ? tr("× M_a") : tr("GiB"));
    const double timeScale = memoryTimeScale(o);
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    for (std::size_t d = 0; d < memory.devices.size(); ++d) {
        auto* series = new QLineSeries;
        series->setName(tr("D%1").arg(d));
        series->replace(curves.devices[d]);
        QPen pen(kDeviceColors[d % std::size(kDeviceColors)], 1.4);
        series->setPen(pen);
        // Many devices do not fit the legend: hovering a line names it.
        connect(series, &QLineSeries::hovered, this, [d](const QPointF&, bool state) {
            if (state)
                QToolTip::showText(QCursor::pos(), tr("device %1").arg(d));
            else
                QToolTip::hideText();
        });
        chart->addSeries(series);
        series->attachAxis(axisX);
        series->attachAxis(axisY);
        top = std::max(top, memory.devices[d].peakBytes * scale);
    }
    if (memory.limitBytes > 0) {
        auto* limit = new QLineSeries;
        limit->setName(tr("limit"));
        const double y = memory.limitBytes * scale;
        limit->append(0, y);
        limit->append(end * timeScale, y);
        QPen pen(QColor(0xb3, 0x26, 0x1e), 1.4, Qt::DashLine);
        limit->setPen(pen);
        chart->addSeries(limit);
        limit->attachAxis(axisX);
        limit->attachAxis(axisY);
        top = std::max(top, y);
    }
    if (memory.devices.size() > 8) chart->legend()->setAlignment(Qt::AlignBottom); // rows of entries
    if (memory.devices.size() > kMaxLegendDevices) {
        // Keep the legend to the limit and the peak; the caption says which device peaks.
        for (QLegendMarker* marker : chart->legend()->markers())
            if (marker->series()->name().startsWith(QLatin1Char('D'))) marker->setVisible(false);
    }
    if (!memory.devices.empty()) {
        const DeviceMemory& worst =
            memory.devices[std::size_t(std::clamp(memory.worstDevice, 0, int(memory.devices.size()) - 1))];
        auto* peak = new QScatterSeries;
        peak->setName(tr("peak D%1").arg(memory.worstDevice));
        peak->setMarkerSize(9);
        peak->setColor(QColor(0x20, 0x20, 0x20));
        peak->append(worst.peakTime * timeScale, worst.peakBytes * scale);
        chart->addSeries(peak);
        peak->attachAxis(axisX);
        peak->attachAxis(axisY);
    }
    axisX->setRange(0, end * timeScale);
    axisY->setRange(0, top > 0 ? top * 1.12 : 1);
    axisX->applyNiceNumbers();
    axisY->applyNiceNumbers();
    axisY->setLabelFormat(QStringLiteral("%.3g"));
    axisX->setLabelFormat(QStringLiteral("%.4g"));
    const QString peakText =
        unitless
            ? QString::number(
                  memory.devices.empty() ? 0 : memory.devices[std::size_t(memory.worstDevice)].peakBytes, 'g',
                  4) +
                  tr(" × M_a")
            : formatBytes(memory.devices.empty() ? 0
                                                 : memory.devices[std::size_t(memory.worstDevice)].peakBytes);
    // A limit above the GPU's memory is bounded by the GPU: say which of the two applies.
    const QString limitName = memory.limitIsGpuMemory ? tr("GPU memory (below the limit set)") : tr("limit");
    m_caption->setText(
        tr("<b>%1</b>: peak %2 on device %3%4")
            .arg(QString::fromStdString(o.title).toHtmlEscaped(), peakText)
            .arg(memory.worstDevice)
            .arg(memory.limitBytes <= 0 ? QString()
                 : memory.fits
                     ? tr(" — within the %1 %2").arg(formatBytes(memory.limitBytes), limitName)
                     : tr(" — <span style='color:#b3261e'>over the %1 %2 by %3</span>")
                           .arg(formatBytes(memory.limitBytes), limitName, formatBytes(memory.overBytes))));
    replaceChart(m_view, chart);
}

// ---------------------------------------------------------------- OverlayPanel

OverlayPanel::OverlayPanel(QWidget* parent)
    : QWidget(parent), m_label(new QLabel(this)), m_close(new QPushButton(tr("Close trace"), this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    layout->addWidget(m_label);
    // Which iteration of a trace of several is compared: one of them, or the median over them
    // (stagecraft-cli overlay --iteration N / --median).
    m_iterationRow = new QWidget(this);
    auto* row = new QHBoxLayout(m_iterationRow);
    row->setContentsMargins(0, 0, 0, 0);
    m_iteration = new QComboBox(m_iterationRow);
    m_iteration->setObjectName(QStringLiteral("overlayIteration"));
    m_iteration->setToolTip(tr("Which of the trace's iterations is compared with the prediction: one, or "
                               "every op at its median over all of them"));
    row->addWidget(new QLabel(tr("Iteration:"), m_iterationRow));
    row->addWidget(m_iteration, 1);
    layout->addWidget(m_iterationRow);
    connect(m_iteration, &QComboBox::activated, this, [this](int index) {
        const int id = m_iteration->itemData(index).toInt();
        emit readingRequested(id < 0 ? -1 : id, id < 0);
    });
    // A run of stagecraft-run is compared with the prediction it made of itself; this asks what the
    // project's own timing would have said of it (stagecraft-cli overlay --project-timing).
    m_projectTiming = new QCheckBox(this);
    m_projectTiming->setObjectName(QStringLiteral("overlayProjectTiming"));
    m_projectTiming->setVisible(false);
    layout->addWidget(m_projectTiming);
    connect(m_projectTiming, &QCheckBox::toggled, this, &OverlayPanel::projectTimingRequested);
    // What a user acts on: the ops that drifted most (a click shows one in the chart) and the
    // error per device, both sorted worst first.
    m_drift = new QTreeWidget(this);
    m_drift->setObjectName(QStringLiteral("overlayDrift"));
    m_drift->setHeaderLabels(
        {tr("Op"), tr("Device"), tr("Predicted"), tr("Measured"), tr("Measured − predicted")});
    m_drift->setRootIsDecorated(false);
    m_drift->setToolTip(tr("The ops whose measured duration departs most from the prediction; click one "
                           "to show it in the chart"));
    m_devices = new QTreeWidget(this);
    m_devices->setObjectName(QStringLiteral("overlayDevices"));
    m_devices->setHeaderLabels(
        {tr("Device"), tr("Ops"), tr("Mean |error|"), tr("Ratio"), tr("Busy"), tr("Idle")});
    m_devices->headerItem()->setToolTip(3, tr("The device's measured op time over its predicted op time"));
    // Busy and idle as "predicted → measured": whether a device's error is its ops' costs or its
    // waiting (for inputs, transfers, the runtime between ops).
    m_devices->headerItem()->setToolTip(4, tr("Time the device computed: predicted → measured"));
    m_devices->headerItem()->setToolTip(
        5, tr("The rest of the makespan (waiting for inputs, transfers, the runtime): predicted → measured"));
    m_devices->setRootIsDecorated(false);
    layout->addWidget(m_drift, 2);
    layout->addWidget(m_devices, 1);
    layout->addWidget(m_close, 0, Qt::AlignRight);
    connect(m_close, &QPushButton::clicked, this, &OverlayPanel::closeTraceRequested);
    connect(m_drift, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        emit eventActivated(item->data(0, Qt::UserRole).toInt(), item->data(0, Qt::UserRole + 1).toInt());
    });
    setResult(nullptr, {});
}

void OverlayPanel::setIterations(const std::vector<int>& ids, int shown, bool median) {
    const QSignalBlocker block(m_iteration);
    m_iteration->clear();
    m_iterationRow->setVisible(ids.size() > 1);
    if (ids.size() <= 1) return;
    m_iteration->addItem(tr("Median of %1 iterations").arg(ids.size()), -1);
    for (const int id : ids)
        m_iteration->addItem(id == ids.back() ? tr("%1 (the last)").arg(id) : QString::number(id), id);
    const int at = median ? 0 : m_iteration->findData(shown);
    m_iteration->setCurrentIndex(at < 0 ? m_iteration->count() - 1 : at);
}

void OverlayPanel::setTimingChoice(const QString& runTiming, const QString& projectTiming, bool useProject) {
    const QSignalBlocker block(m_projectTiming);
    m_projectTiming->setVisible(!runTiming.isEmpty() && runTiming != projectTiming);
    m_projectTiming->setText(
        tr("Time with the project's timing (%1), not the run's (%2)").arg(projectTiming, runTiming));
    m_projectTiming->setToolTip(
        tr("The run predicted itself with the %1 timing, and is compared with that prediction. Checked: the "
           "project's own costs.timing (%2) times it, to see what that timing would have said of the same "
           "run "
           "(stagecraft-cli overlay --project-timing); a calibration then keeps the project's timing.")
            .arg(runTiming, projectTiming));
    m_projectTiming->setChecked(useProject);
}

void OverlayPanel::setResult(const AnalysisPtr& result, const QString& tracePath) {
    m_close->setVisible(!tracePath.isEmpty());
    if (tracePath.isEmpty()) {
        m_iterationRow->setVisible(false);
        m_projectTiming->setVisible(false);
    }
    m_drift->clear();
    m_devices->clear();
    const bool lists = result && result->overlay && result->measured && !tracePath.isEmpty();
    m_drift->setVisible(lists);
    m_devices->setVisible(lists);
    if (lists) fillLists(*result);
    if (tracePath.isEmpty()) {
        m_label->setText(tr("Open a measured Chrome trace (File ▸ Open Trace, or drop it on the window) to "
                            "compare it with the prediction of its schedule."));
        return;
    }
    if (!result) return;
    if (!result->overlay) {
        m_label->setText(tr("<b>Trace</b> %1<br><span style='color:#b3261e'>%2</span>")
                             .arg(tracePath.toHtmlEscaped(),
                                  QString::fromStdString(result->overlayError).toHtmlEscaped()));
        return;
    }
    const OverlayReport& r = result->overlay->report;
    const ScheduleOutcome& o = result->outcomes[result->overlay->outcome];
    const bool unitless = o.prediction.report.unitless;
    auto t = [&](double v) { return unitless ? formatUnits(v) : formatMicros(v); };
    QString worst = tr("none");
    if (r.worstOp >= 0 && std::size_t(r.worstOp) < r.ops.size()) {
        const OpDeviation& d = r.ops[std::size_t(r.worstOp)];
        const TimelineEvent& e = o.prediction.timeline.events[d.predictedEvent];
        worst = QStringLiteral("%1 on D%2 (%3%4)")
                    .arg(QString::fromStdString(opName(e.op, o.prediction.timeline.shape.splitBackward,
                                                       o.prediction.timeline.shape.sequenceSlices))
                             .toHtmlEscaped())
                    .arg(e.device)
                    .arg(d.durationError >= 0 ? QStringLiteral("+") : QString(), t(d.durationError));
    }
    m_label->setText(
        tr("<b>Trace</b> %1 against <b>%2</b><table cellspacing='4'>"
           "<tr><td>Predicted makespan</td><td align='right'>%3</td></tr>"
           "<tr><td>Measured makespan</td><td align='right'>%4</td></tr>"
           "<tr><td>Prediction's makespan error</td><td align='right'><b>%5</b></td></tr>"
           "<tr><td>Op duration error |mean| / max</td><td align='right'>%6 / %7</td></tr>"
           "<tr><td>Op start deviation |mean| / max</td><td align='right'>%8 / %9</td></tr>"
           "<tr><td>Ops matched</td><td align='right'>%10</td></tr>"
           "<tr><td>Worst op</td><td align='right'><b>%11</b></td></tr></table>"
           "%12"
           "<span style='color:#d62728'>▭</span> measured bars are outlined over the predicted "
           "ones, coloured by their duration error (grey as predicted, red slower, blue "
           "faster). Click an op below to show it in the chart.")
            .arg(tracePath.toHtmlEscaped(), QString::fromStdString(o.title).toHtmlEscaped(),
                 t(r.makespanPredicted), t(r.makespanMeasured), formatSignedPercent(r.makespanError),
                 t(r.meanAbsDurationError), t(r.maxAbsDurationError), t(r.meanAbsStartError),
                 t(r.maxAbsStartError))
            .arg(qulonglong(r.ops.size()))
            .arg(worst)
            // How much the run itself varied: an error inside its median's interval is
            // inside the run's own noise.
            .arg(result->measuredSpread.empty()
                     ? QString()
                     : tr("The run's makespan: %1.<br>")
                           .arg(QString::fromStdString(result->measuredSpread).toHtmlEscaped())));
}

void OverlayPanel::fillLists(const AnalysisResult& result) {
    const std::size_t panel = result.overlay->outcome;
    const Timeline& predicted = result.outcomes[panel].prediction.timeline;
    const Timeline& measured = *result.measured;
    const OverlayReport& report = result.overlay->report;
    const bool unitless = result.outcomes[panel].prediction.report.unitless;
    auto t = [&](double v) { return unitless ? formatUnits(v) : formatMicros(v); };
    OverlayBreakdown breakdown;
    try {
        breakdown = breakdownOverlay(predicted, measured, report, 20);
    } catch (const Error&) {
        return; // a report of other timelines: nothing to list
    }
    for (std::size_t i : breakdown.mostDrift) {
        const OpDeviation& d = report.ops[i];
        const TimelineEvent& p = predicted.events[d.predictedEvent];
        const TimelineEvent& m = measured.events[d.measuredEvent];
        auto* item = new QTreeWidgetItem(m_drift);
        item->setText(0, QString::fromStdString(
                             opName(p.op, predicted.shape.splitBackward, predicted.shape.sequenceSlices)));
        item->setText(1, QStringLiteral("D%1").arg(p.device));
        item->setText(2, t(p.duration()));
        item->setText(3, t(m.duration()));
        item->setText(4, (d.durationError >= 0 ? QStringLiteral("+") : QString()) + t(d.durationError));
        const Color c = durationErrorColor(p.duration(), m.duration());
        item->setForeground(4, QColor(c.r, c.g, c.b));
        item->setData(0, Qt::UserRole, int(panel));
        item->setData(0, Qt::UserRole + 1, int(d.predictedEvent));
    }
    // Devices by mean |error|, worst first.
    std::vector<int> order(breakdown.devices.size());
    for (std::size_t d = 0; d < order.size(); ++d) order[d] = int(d);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return breakdown.devices[std::size_t(a)].meanAbsDurationError >
               breakdown.devices[std::size_t(b)].meanAbsDurationError;
    });
    for (int d : order) {
        const OverlayGroup& g = breakdown.devices[std::size_t(d)];
        if (g.ops == 0) continue;
        auto* item = new QTreeWidgetItem(m_devices);
        item->setText(0, QStringLiteral("D%1").arg(d));
        item->setText(1, QString::number(qulonglong(g.ops)));
        item->setText(2, t(g.meanAbsDurationError));
        item->setText(3, g.durationRatio ? QString::number(*g.durationRatio, 'f', 3) : QStringLiteral("–"));
        // Whether the device's error is its ops' costs or its waiting.
        const DeviceTime& time = breakdown.deviceTimes[std::size_t(d)];
        item->setText(4, QStringLiteral("%1 → %2").arg(t(time.busyPredicted), t(time.busyMeasured)));
        item->setText(5, QStringLiteral("%1 → %2").arg(t(time.idlePredicted), t(time.idleMeasured)));
    }
    for (QTreeWidget* list : {m_drift, m_devices})
        for (int c = 0; c < list->columnCount(); ++c) list->resizeColumnToContents(c);
}

QString OverlayPanel::text() const {
    QString html = m_label->text();
    html.replace(QStringLiteral("</td><td align='right'>"), QStringLiteral(": "));
    html.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    return html;
}

// ---------------------------------------------------------------- MessageBar

MessageBar::MessageBar(QWidget* parent)
    : QFrame(parent), m_label(new QLabel(this)), m_action(new QPushButton(this)) {
    setFrameShape(QFrame::StyledPanel);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Messages are HTML (callers escape core's text): as plain text an escaped quote would show
    // as a literal "&quot;".
    m_label->setTextFormat(Qt::RichText);
    layout->addWidget(m_label, 1);
    m_action->setObjectName(QStringLiteral("messageAction"));
    m_action->hide();
    connect(m_action, &QPushButton::clicked, this, [this] {
        // The handler may show a new message (and action): take it out first.
        const std::function<void()> run = std::move(m_onAction);
        m_onAction = nullptr;
        hide();
        if (run) run();
    });
    layout->addWidget(m_action, 0, Qt::AlignTop);
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Dismiss"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    layout->addWidget(close, 0, Qt::AlignTop);
    hide();
}

void MessageBar::showMessage(const QString& text, Kind kind, Source source) {
    m_source = source;
    m_label->setText(text);
    m_onAction = nullptr;
    m_action->hide();
    setStyleSheet(kind == Kind::Error
                      ? QStringLiteral("MessageBar { background: #fdecea; border: 1px solid #e6a39b; }")
                      : QStringLiteral("MessageBar { background: #e8f1fb; border: 1px solid #9bbbe6; }"));
    show();
}

void MessageBar::setAction(const QString& text, std::function<void()> onClick) {
    m_action->setText(text);
    m_onAction = std::move(onClick);
    m_action->show();
}

void MessageBar::clear(Source source) {
    if (m_source == source) hide();
}

QString MessageBar::text() const {
    return isHidden() ? QString() : QTextDocumentFragment::fromHtml(m_label->text()).toPlainText();
}

} // namespace stagecraft::gui
