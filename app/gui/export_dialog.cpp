#include "gui/export_dialog.h"

#include "gui/models/constants.h"
#include "render/scene_painter.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

namespace stagecraft::gui {
namespace {

const char* const kSuffixes[] = {"svg", "pdf", "png", "tex"};
constexpr int kPreviewWidth = 420; ///< pixels

} // namespace

ExportDialog::ExportDialog(const ChartSettings& current, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Export Chart"));
    QSettings settings;
    m_format = new QComboBox(this);
    m_format->addItem(tr("SVG (vector)"), int(render::ExportFormat::Svg));
    m_format->addItem(tr("PDF (vector)"), int(render::ExportFormat::Pdf));
    m_format->addItem(tr("PNG (image)"), int(render::ExportFormat::Png));
    m_format->addItem(tr("TikZ (LaTeX)"), int(render::ExportFormat::Tikz));
    QHBoxLayout* pathRow = createPathRow();
    QHBoxLayout* sizeRow = createSizeRow(settings);
    m_dpi = new QSpinBox(this);
    m_dpi->setRange(30, 1200);
    m_dpi->setValue(settings.value(constants::kExportDpiKey, 300).toInt());
    m_dpi->setSuffix(tr(" dpi"));
    m_sizeHint = new QLabel(this);
    m_palette = new QComboBox(this);
    for (const char* p : {"paper", "slides", "colorblind", "greyscale"})
        m_palette->addItem(QString::fromLatin1(p));
    m_palette->setCurrentText(QString::fromStdString(current.palette));
    createToggles(current);
    m_schedules = new QListWidget(this);
    m_schedules->setObjectName(QStringLiteral("exportSchedules"));
    m_schedules->setMaximumHeight(96);
    m_schedules->setToolTip(tr("The shown schedules; uncheck one to leave it out of this figure"));
    QHBoxLayout* rangeRow = createRangeRow();
    m_preview = new QLabel(this);
    m_preview->setObjectName(QStringLiteral("exportPreview"));
    m_preview->setMinimumSize(kPreviewWidth, 200);
    m_preview->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    m_preview->setFrameShape(QFrame::StyledPanel);

    auto* form = new QFormLayout;
    form->addRow(tr("Format"), m_format);
    form->addRow(tr("File"), pathRow);
    form->addRow(tr("Width"), sizeRow);
    form->addRow(tr("Resolution"), m_dpi);
    form->addRow(QString(), m_sizeHint);
    form->addRow(tr("Palette"), m_palette);
    form->addRow(tr("Schedules"), m_schedules);
    form->addRow(tr("Time range"), rangeRow);
    auto* toggles = new QVBoxLayout;
    for (QCheckBox* box : {m_legend, m_axis, m_labels, m_title, m_subtitle, m_costLine, m_unitTime, m_comm,
                           m_overlay, m_measuredRows, m_standalone})
        toggles->addWidget(box);
    form->addRow(tr("Draw"), toggles);
    QDialogButtonBox* buttons = createButtons();
    auto* body = new QHBoxLayout;
    body->addLayout(form);
    body->addWidget(m_preview, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(body);
    layout->addWidget(buttons);

    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::formatChanged);
    connect(m_width, &QDoubleSpinBox::valueChanged, this, &ExportDialog::updateSizeHint);
    connect(m_dpi, &QSpinBox::valueChanged, this, &ExportDialog::updateSizeHint);
    connect(m_unit, &QComboBox::currentIndexChanged, this, [this](int) {
        // Keep the physical size when the unit changes.
        const bool mm = m_unit->currentData().toInt() == int(SizeUnit::Millimetre);
        m_width->setValue(mm ? m_width->value() * 25.4 / 72.0 : m_width->value() * 72.0 / 25.4);
    });
    restoreFile(settings);
    connectPreview();
}

QHBoxLayout* ExportDialog::createPathRow() {
    m_path = new QLineEdit(this);
    auto* browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);
    return pathRow;
}

/// The width and its unit, and the two figure widths of two-column papers.
QHBoxLayout* ExportDialog::createSizeRow(const QSettings& settings) {
    m_width = new QDoubleSpinBox(this);
    m_width->setRange(25.4, 14400);
    m_width->setDecimals(1);
    m_unit = new QComboBox(this);
    m_unit->addItem(tr("mm"), int(SizeUnit::Millimetre));
    m_unit->addItem(tr("pt"), int(SizeUnit::Point));
    m_unit->setCurrentIndex(settings.value(constants::kExportUnitKey, 0).toInt() == 1 ? 1 : 0);
    m_width->setValue(settings.value(constants::kExportWidthKey, 170.0).toDouble());
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(m_width, 1);
    sizeRow->addWidget(m_unit);
    for (const auto& [text, points] :
         {std::pair{tr("Single column"), kSingleColumnPt}, std::pair{tr("Double column"), kDoubleColumnPt}}) {
        auto* preset = new QPushButton(text, this);
        preset->setToolTip(tr("%1 pt wide").arg(points));
        connect(preset, &QPushButton::clicked, this, [this, points = points] {
            m_unit->setCurrentIndex(m_unit->findData(int(SizeUnit::Point)));
            m_width->setValue(points);
        });
        sizeRow->addWidget(preset);
    }
    return sizeRow;
}

/// What to draw, from the window's chart settings.
void ExportDialog::createToggles(const ChartSettings& current) {
    m_legend = new QCheckBox(tr("Legend"), this);
    m_axis = new QCheckBox(tr("Time axis"), this);
    m_labels = new QCheckBox(tr("Micro-batch labels"), this);
    m_title = new QCheckBox(tr("Titles"), this);
    m_subtitle = new QCheckBox(tr("Key figures beside the titles"), this);
    m_costLine = new QCheckBox(tr("Cost line"), this);
    m_unitTime = new QCheckBox(tr("Unit-time step grid (the papers' figures: F = B = W = 1)"), this);
    m_comm = new QCheckBox(tr("Communication lane"), this);
    m_overlay = new QCheckBox(tr("Measured overlay"), this);
    m_measuredRows = new QCheckBox(tr("Measured rows under predicted"), this);
    m_measuredRows->setObjectName(QStringLiteral("exportMeasuredRows"));
    m_standalone = new QCheckBox(tr("Standalone document (TikZ)"), this);
    m_legend->setChecked(current.legend);
    m_axis->setChecked(current.axis);
    m_labels->setChecked(current.labels);
    m_title->setChecked(current.title);
    m_subtitle->setChecked(current.subtitle);
    m_costLine->setChecked(current.costLine);
    m_unitTime->setChecked(current.unitTime);
    connect(m_title, &QCheckBox::toggled, m_subtitle, &QWidget::setEnabled);
    m_comm->setChecked(current.showComm);
    m_overlay->setChecked(current.overlay);
    m_measuredRows->setChecked(current.measuredRows == MeasuredRows::UnderPredicted);
    m_measuredRows->setEnabled(current.overlay);
    connect(m_overlay, &QCheckBox::toggled, m_measuredRows, &QWidget::setEnabled);
    m_standalone->setChecked(true);
}

/// A time range, in the chart's time: µs, or units with the unit-time grid.
QHBoxLayout* ExportDialog::createRangeRow() {
    m_from = new QDoubleSpinBox(this);
    m_to = new QDoubleSpinBox(this);
    for (QDoubleSpinBox* spin : {m_from, m_to}) {
        spin->setRange(0, 1e12);
        spin->setDecimals(3);
        spin->setToolTip(tr("µs, or units with the unit-time step grid; from 0 to end: the whole iteration"));
    }
    m_from->setObjectName(QStringLiteral("exportFrom"));
    m_to->setObjectName(QStringLiteral("exportTo"));
    m_to->setSpecialValueText(tr("end"));
    auto* rangeRow = new QHBoxLayout;
    rangeRow->addWidget(m_from, 1);
    rangeRow->addWidget(new QLabel(tr("to"), this));
    rangeRow->addWidget(m_to, 1);
    return rangeRow;
}

/// Export and Cancel; Export keeps the size, the folder, the format and the name for next time.
QDialogButtonBox* ExportDialog::createButtons() {
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        QSettings s;
        s.setValue(constants::kExportWidthKey, m_width->value());
        s.setValue(constants::kExportUnitKey, m_unit->currentIndex());
        s.setValue(constants::kExportDpiKey, m_dpi->value());
        s.setValue(constants::kExportDirKey, QFileInfo(m_path->text()).absolutePath());
        // The format and the name are kept for the next export, after a restart too.
        s.setValue(constants::kExportFormatKey, QString::fromLatin1(kSuffixes[m_format->currentIndex()]));
        s.setValue(constants::kExportNameKey, QFileInfo(m_path->text()).completeBaseName());
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    return buttons;
}

/// The file of the last export (its folder, name and format), after a restart too.
void ExportDialog::restoreFile(const QSettings& settings) {
    const QString dir = settings.value(constants::kExportDirKey, QDir::homePath()).toString();
    const QString name = settings.value(constants::kExportNameKey, QStringLiteral("schedule")).toString();
    const QString suffix = settings.value(constants::kExportFormatKey, QStringLiteral("svg")).toString();
    const auto known = std::find(std::begin(kSuffixes), std::end(kSuffixes), suffix.toStdString());
    m_format->setCurrentIndex(known == std::end(kSuffixes) ? 0 : int(known - std::begin(kSuffixes)));
    m_path->setText(QDir(dir).filePath(name + QLatin1Char('.') +
                                       QString::fromLatin1(kSuffixes[m_format->currentIndex()])));
    connect(m_path, &QLineEdit::textEdited, this, [this](const QString& text) {
        if (auto f = render::exportFormatForPath(text))
            m_format->setCurrentIndex(m_format->findData(int(*f)));
    });
    formatChanged();
}

/// The preview follows every choice, a moment after the last one.
void ExportDialog::connectPreview() {
    m_previewTimer.setSingleShot(true);
    m_previewTimer.setInterval(120);
    connect(&m_previewTimer, &QTimer::timeout, this, &ExportDialog::updatePreview);
    const auto later = [this] { m_previewTimer.start(); };
    for (QCheckBox* box : findChildren<QCheckBox*>()) connect(box, &QCheckBox::toggled, this, later);
    for (QComboBox* combo : findChildren<QComboBox*>())
        connect(combo, &QComboBox::currentIndexChanged, this, later);
    for (QDoubleSpinBox* spin : {m_width, m_from, m_to})
        connect(spin, &QDoubleSpinBox::valueChanged, this, later);
    connect(m_schedules, &QListWidget::itemChanged, this, later);
}

void ExportDialog::setSchedules(const QList<QPair<QString, QString>>& schedules) {
    m_schedules->clear();
    for (const auto& [name, title] : schedules) {
        auto* item = new QListWidgetItem(title, m_schedules);
        item->setData(Qt::UserRole, name);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
    }
    m_previewTimer.start();
}

void ExportDialog::setPreview(std::function<Scene(const ExportRequest&)> build) {
    m_build = std::move(build);
    updatePreview();
}

QPixmap ExportDialog::preview() const {
    return m_preview->pixmap();
}

void ExportDialog::updatePreview() {
    if (!m_build) return;
    const Scene scene = m_build(request());
    if (scene.width <= 0 || scene.height <= 0) {
        m_preview->setPixmap(QPixmap());
        m_preview->setText(tr("Nothing to draw"));
        return;
    }
    // The figure at the preview's width, as the export draws it (the same Scene and painter).
    const double scale = double(kPreviewWidth) / scene.width;
    QImage image(kPreviewWidth, std::max(1, int(scene.height * scale + 0.5)), QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.scale(scale, scale);
    render::paintScene(painter, scene, nullptr);
    painter.end();
    m_preview->setText(QString());
    m_preview->setPixmap(QPixmap::fromImage(image));
}

void ExportDialog::setPath(const QString& path) {
    m_path->setText(path);
    if (auto f = render::exportFormatForPath(path)) m_format->setCurrentIndex(m_format->findData(int(*f)));
}

void ExportDialog::browse() {
    const int index = m_format->currentIndex();
    const QString filter =
        tr("%1 (*.%2)").arg(m_format->currentText(), QString::fromLatin1(kSuffixes[index]));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Chart"), m_path->text(), filter);
    if (!path.isEmpty()) setPath(path);
}

void ExportDialog::formatChanged() {
    const auto format = render::ExportFormat(m_format->currentData().toInt());
    m_dpi->setEnabled(format == render::ExportFormat::Png);
    m_standalone->setEnabled(format == render::ExportFormat::Tikz);
    // Keep the file name, switch its suffix.
    QFileInfo info(m_path->text());
    QString base = info.fileName();
    if (base.endsWith(QLatin1String(".tikz"))) base.chop(5);
    const int dot = base.lastIndexOf(QLatin1Char('.'));
    if (dot > 0) base = base.left(dot);
    m_path->setText(
        QDir(info.path())
            .filePath(base + QLatin1Char('.') + QString::fromLatin1(kSuffixes[m_format->currentIndex()])));
    updateSizeHint();
}

void ExportDialog::updateSizeHint() {
    const ExportRequest r = request();
    if (r.file.format == render::ExportFormat::Png)
        m_sizeHint->setText(tr("%1 px wide").arg(qRound(r.widthPt / 72.0 * r.file.dpi)));
    else
        m_sizeHint->setText(
            tr("%1 pt = %2 mm wide").arg(r.widthPt, 0, 'f', 1).arg(r.widthPt * 25.4 / 72.0, 0, 'f', 1));
}

ExportRequest ExportDialog::request() const {
    ExportRequest r;
    r.path = m_path->text();
    r.file.format = render::ExportFormat(m_format->currentData().toInt());
    r.file.dpi = m_dpi->value();
    r.file.tikzStandalone = m_standalone->isChecked();
    r.widthPt = toPoints(m_width->value(), SizeUnit(m_unit->currentData().toInt()));
    r.chart.palette = m_palette->currentText().toStdString();
    r.chart.legend = m_legend->isChecked();
    r.chart.axis = m_axis->isChecked();
    r.chart.labels = m_labels->isChecked();
    r.chart.title = m_title->isChecked();
    r.chart.subtitle = m_subtitle->isChecked();
    r.chart.costLine = m_costLine->isChecked();
    r.chart.unitTime = m_unitTime->isChecked();
    r.chart.showComm = m_comm->isChecked();
    r.chart.overlay = m_overlay->isChecked();
    r.chart.measuredRows =
        m_measuredRows->isChecked() ? MeasuredRows::UnderPredicted : MeasuredRows::Overlaid;
    // Every schedule when all are checked (the export then draws the shown chart as it is).
    QStringList chosen;
    for (int i = 0; i < m_schedules->count(); ++i)
        if (m_schedules->item(i)->checkState() == Qt::Checked)
            chosen << m_schedules->item(i)->data(Qt::UserRole).toString();
    r.allSchedules = chosen.size() == m_schedules->count();
    r.chart.timeStart = m_from->value();
    r.chart.timeEnd = m_to->value();
    if (!r.allSchedules) r.schedules = chosen;
    return r;
}

} // namespace stagecraft::gui
