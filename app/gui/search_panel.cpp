#include "gui/search_panel.h"

#include "error.h"
#include "gui/models/format.h"
#include "gui/models/project_document.h"
#include "render/scene_painter.h"
#include "search/search_charts.h"
#include "search/search_report.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

namespace stagecraft::gui {

/// Paints core's search chart scaled to the widget; a click on a marker reports its result.
class SearchChartView : public QWidget {
    Q_OBJECT
  public:
    explicit SearchChartView(QWidget* parent = nullptr) : QWidget(parent) {
        setMinimumSize(360, 200);
        setMouseTracking(true);
    }
    void setScene(Scene scene) {
        m_scene = std::move(scene);
        update();
    }
  signals:
    void resultClicked(int index);

  protected:
    void paintEvent(QPaintEvent*) override {
        QPainter painter(this);
        painter.fillRect(rect(), palette().base());
        if (m_scene.width <= 0) return;
        painter.setRenderHint(QPainter::Antialiasing);
        painter.scale(scale(), scale());
        render::paintScene(painter, m_scene);
    }
    void mousePressEvent(QMouseEvent* event) override {
        if (const SceneRect* r = markerAt(event->position())) emit resultClicked(r->event);
    }
    void mouseMoveEvent(QMouseEvent* event) override {
        const SceneRect* r = markerAt(event->position());
        if (r)
            QToolTip::showText(event->globalPosition().toPoint(), QString::fromStdString(r->tooltip), this);
        else
            QToolTip::hideText();
    }

  private:
    double scale() const {
        if (m_scene.width <= 0 || m_scene.height <= 0) return 1;
        return std::min(width() / m_scene.width, height() / m_scene.height);
    }
    const SceneRect* markerAt(QPointF p) {
        const double s = scale();
        const double x = p.x() / s, y = p.y() / s;
        const SceneRect* best = nullptr;
        for (const SceneRect& r : m_scene.rects) // later markers draw on top: the last hit wins
            if (r.kind == kSearchMarkerKind && x >= r.x - 1 && x <= r.x + r.w + 1 && y >= r.y - 1 &&
                y <= r.y + r.h + 1)
                best = &r;
        return best;
    }
    Scene m_scene;
};

namespace {

enum Column { Schedule, Batch, Mfu, Tokens, Memory, Config, Columns };

/// The search replays ZeRO's weight all-gathers over the timeline; the project's own prediction
/// (what opening a row shows) leaves them out. Where they stall the iteration, the difference in
/// words; "" otherwise.
QString gatherNote(const ConfigResult& c) {
    if (!(c.iterationUs > c.predictedIterationUs * (1 + 1e-9))) return {};
    return SearchPanel::tr("The search's MFU %1 % includes ZeRO-%2 weight all-gathers, which stall the "
                           "iteration by %3. The project's own prediction leaves them out: opened, this "
                           "configuration shows MFU %4 % and %5 tokens/s.")
        .arg(QString::number(100 * c.mfu, 'f', 1))
        .arg(c.config.zeroStage)
        .arg(formatMicros(c.iterationUs - c.predictedIterationUs))
        .arg(QString::number(100 * c.predictedMfu, 'f', 1))
        .arg(QString::number(c.tokensPerSecond * c.iterationUs / c.predictedIterationUs, 'f', 0));
}

} // namespace

SearchPanel::SearchPanel(ProjectDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_batch(new QLineEdit(QStringLiteral("0.25..16"), this)),
      m_schedules(new QLineEdit(this)), m_start(new QPushButton(tr("Search"), this)),
      m_cancel(new QPushButton(tr("Cancel"), this)), m_progress(new QProgressBar(this)),
      m_status(new QLabel(this)), m_table(new QTableWidget(0, Columns, this)),
      m_chart(new SearchChartView(this)) {
    setObjectName(QStringLiteral("searchPanel"));
    m_batch->setToolTip(tr("Batch sizes per GPU: A, or A..B for the powers of two from A to B; empty: "
                           "the project's global batch"));
    m_schedules->setPlaceholderText(tr("the project's schedules"));
    m_schedules->setToolTip(tr("Comma list of schedules to search; empty: the project's"));
    m_cancel->setEnabled(false);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    auto* form = new QHBoxLayout;
    form->addWidget(new QLabel(tr("Batch per GPU"), this));
    form->addWidget(m_batch);
    form->addWidget(new QLabel(tr("Schedules"), this));
    form->addWidget(m_schedules, 1);
    form->addWidget(m_start);
    form->addWidget(m_cancel);
    form->addWidget(m_progress);
    m_table->setHorizontalHeaderLabels(
        {tr("Schedule"), tr("Batch/GPU"), tr("MFU"), tr("tokens/s"), tr("Peak GiB"), tr("Configuration")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->setToolTip(tr("Double-click a configuration to open it in the project"));
    auto* results = new QHBoxLayout;
    // The table's six columns read at half the panel; the charts take the other half.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    results->addWidget(m_table, 1);
    results->addWidget(m_chart, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_status);
    layout->addLayout(results, 1);

    connect(m_start, &QPushButton::clicked, this, &SearchPanel::start);
    connect(m_cancel, &QPushButton::clicked, this, &SearchPanel::cancel);
    connect(&m_watcher, &QFutureWatcher<std::shared_ptr<SearchResult>>::finished, this,
            &SearchPanel::onFinished);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (QTableWidgetItem* item = m_table->item(row, Schedule))
            openResult(std::size_t(item->data(Qt::UserRole).toULongLong()));
    });
    connect(m_chart, &SearchChartView::resultClicked, this, [this](int index) {
        if (index >= 0) openResult(std::size_t(index));
    });
    auto* timer = new QTimer(this);
    timer->setInterval(100);
    connect(timer, &QTimer::timeout, this, &SearchPanel::pollProgress);
    timer->start();
}

SearchPanel::~SearchPanel() {
    if (m_cancelFlag) *m_cancelFlag = true;
    m_watcher.waitForFinished();
}

bool SearchPanel::isRunning() const {
    return m_watcher.isRunning();
}

void SearchPanel::start() {
    if (isRunning()) return;
    const Project project = m_document->project();
    SearchSpace space;
    try {
        const QString batch = m_batch->text().trimmed();
        if (!batch.isEmpty()) space.batchPerGpu = parseBatchRange(batch.toStdString(), "batch per GPU");
        QString schedules = m_schedules->text().trimmed();
        if (schedules.isEmpty()) {
            for (const std::string& s : project.schedules) space.schedules.push_back(s);
        } else {
            for (const QString& s : schedules.split(QLatin1Char(','), Qt::SkipEmptyParts))
                space.schedules.push_back(s.trimmed().toStdString());
        }
        planSearch(project, space); // refuse bad options here, on the UI thread
    } catch (const Error& e) {
        m_status->setText(QString::fromStdString(e.message()));
        emit message(QString::fromStdString(e.message()));
        return;
    }
    m_searched = project;
    m_cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_done = std::make_shared<std::atomic<std::size_t>>(0);
    m_total = std::make_shared<std::atomic<std::size_t>>(1);
    SearchOptions options;
    options.progress = [cancel = m_cancelFlag, done = m_done, total = m_total](const SearchProgress& p) {
        *done = p.done;
        *total = std::max<std::size_t>(1, p.total);
        return !cancel->load();
    };
    m_start->setEnabled(false);
    m_cancel->setEnabled(true);
    m_status->setText(tr("Searching…"));
    m_watcher.setFuture(QtConcurrent::run([project, space, options] {
        return std::make_shared<SearchResult>(runSearch(project, space, options));
    }));
}

void SearchPanel::cancel() {
    if (m_cancelFlag) *m_cancelFlag = true;
}

void SearchPanel::pollProgress() {
    if (!isRunning() || !m_total) return;
    m_progress->setRange(0, int(std::min<std::size_t>(*m_total, 1u << 30)));
    m_progress->setValue(int(std::min<std::size_t>(*m_done, 1u << 30)));
}

void SearchPanel::onFinished() {
    m_start->setEnabled(true);
    m_cancel->setEnabled(false);
    std::shared_ptr<SearchResult> r;
    try {
        r = m_watcher.result();
    } catch (const std::exception& e) {
        m_status->setText(QString::fromUtf8(e.what()));
        emit finished();
        return;
    }
    m_result = r;
    m_progress->setRange(0, 1);
    m_progress->setValue(1);
    // A schedule with nothing that fits is named, not just absent from the table.
    const std::string unfit = unfitSchedulesText(*r);
    m_status->setText(
        tr("%1 configurations on %2 GPUs, %3 fit the memory limit%4%5")
            .arg(r->results.size())
            .arg(r->gpus)
            .arg(r->fitting)
            .arg(unfit.empty() ? QString() : QStringLiteral("; ") + QString::fromStdString(unfit))
            .arg(r->cancelled ? tr(" (cancelled)") : QString()));
    m_table->setRowCount(0);
    for (const BestConfig& b : r->best) {
        const ConfigResult& c = r->results[b.result];
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        auto* first = new QTableWidgetItem(QString::fromStdString(c.config.schedule));
        first->setData(Qt::UserRole, qulonglong(b.result));
        m_table->setItem(row, Schedule, first);
        m_table->setItem(row, Batch, new QTableWidgetItem(QString::number(c.config.batchPerGpu)));
        auto* mfu = new QTableWidgetItem(QString::number(100 * c.mfu, 'f', 1) + QLatin1Char('%'));
        auto* tokens = new QTableWidgetItem(QString::number(c.tokensPerSecond, 'f', 0));
        if (const QString why = gatherNote(c); !why.isEmpty()) {
            for (QTableWidgetItem* item : {mfu, tokens}) {
                item->setToolTip(why);
                item->setText(item->text() + QStringLiteral(" *"));
            }
        }
        m_table->setItem(row, Mfu, mfu);
        m_table->setItem(row, Tokens, tokens);
        m_table->setItem(
            row, Memory,
            new QTableWidgetItem(QString::number(c.peakMemoryBytes / (1024.0 * 1024 * 1024), 'f', 2)));
        m_table->setItem(row, Config, new QTableWidgetItem(QString::fromStdString(configLabel(c.config))));
    }
    try {
        m_chart->setScene(buildSearchChart(*r, SearchChart::Both, "paper"));
    } catch (const Error& e) {
        m_status->setText(QString::fromStdString(e.message()));
    }
    emit finished();
}

QString SearchPanel::statusText() const {
    return m_status->text();
}

void SearchPanel::openResult(std::size_t index) {
    if (!m_result || index >= m_result->results.size() || !m_result->results[index].fits) return;
    const SearchConfig& c = m_result->results[index].config;
    Project p = projectForConfig(m_document->project(), c);
    // Keep the schedules the project shows, with the chosen one among them.
    p.schedules = m_document->project().schedules;
    if (std::find(p.schedules.begin(), p.schedules.end(), c.schedule) == p.schedules.end())
        p.schedules.push_back(c.schedule);
    m_document->applyProject(p, tr("Open %1").arg(QString::fromStdString(configLabel(c))));
    // The numbers the project now shows differ from the row's where the gathers stall: say why.
    const QString why = gatherNote(m_result->results[index]);
    if (!why.isEmpty()) emit message(tr("Opened %1. %2").arg(QString::fromStdString(configLabel(c)), why));
}

} // namespace stagecraft::gui

#include "search_panel.moc"
