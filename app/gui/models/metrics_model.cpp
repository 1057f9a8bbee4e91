#include "gui/models/metrics_model.h"

#include "gui/models/format.h"

#include <QColor>
#include <algorithm>
#include <cmath>

namespace stagecraft::gui {
namespace {

double peakBytes(const MemoryReport& memory) {
    double peak = 0;
    for (const DeviceMemory& d : memory.devices) peak = std::max(peak, d.peakBytes);
    return peak;
}

} // namespace

MetricsModel::MetricsModel(QObject* parent) : QAbstractTableModel(parent) {}

void MetricsModel::setResult(AnalysisPtr result) {
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

void MetricsModel::setEditedFrom(const QString& edited, const QString& base) {
    beginResetModel();
    m_edited = edited.toStdString();
    m_base = base.toStdString();
    endResetModel();
}

QString MetricsModel::delta(const ScheduleOutcome& o, int column) const {
    if (m_edited.empty() || o.name != m_edited) return {};
    const auto base = std::find_if(m_result->outcomes.begin(), m_result->outcomes.end(),
                                   [&](const ScheduleOutcome& b) { return b.name == m_base; });
    if (base == m_result->outcomes.end()) return {};
    const ScheduleReport& r = o.prediction.report;
    const ScheduleReport& b = base->prediction.report;
    const auto sign = [](double v) {
        return v > 0 ? QStringLiteral("+") : v < 0 ? QStringLiteral("−") : QString();
    };
    switch (column) {
    case Iteration: {
        const double d = r.iterationUs - b.iterationUs;
        return QStringLiteral(" (%1%2)").arg(sign(d), r.unitless ? formatUnits(std::abs(d))
                                                                 : formatMicros(std::abs(d)));
    }
    case Bubble: {
        const double d = 100 * (r.time.bubbleRatio - b.time.bubbleRatio);
        return QStringLiteral(" (%1%2 pt)").arg(sign(d), QString::number(std::abs(d), 'f', 1));
    }
    case PeakMemory: {
        const double d = peakBytes(r.memory) - peakBytes(b.memory);
        return QStringLiteral(" (%1%2)").arg(sign(d), r.unitless ? QString::number(std::abs(d), 'g', 4)
                                                                 : formatBytes(std::abs(d)));
    }
    default:
        return {};
    }
}

int MetricsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_result ? 0 : int(m_result->outcomes.size());
}

int MetricsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MetricsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    // Per column: its title, its CSV header (plain numbers for a spreadsheet: the unit is in the
    // header, once) and what it measures.
    struct ColumnText {
        const char* title;
        const char* csv;
        const char* tip;
    };
    static constexpr ColumnText kColumns[ColumnCount] = {
        {QT_TR_NOOP("Schedule"), "schedule", nullptr},
        {QT_TR_NOOP("Iteration"), "iteration_us",
         QT_TR_NOOP("Simulated time of one training iteration (makespan)")},
        {QT_TR_NOOP("Bubble"), "bubble_percent",
         QT_TR_NOOP("Idle share of all device time from 0 to the makespan")},
        {QT_TR_NOOP("Span bubble"), "span_bubble_percent",
         QT_TR_NOOP(
             "The zero-bubble papers' measure, for schedules without a flush: over the longest device "
             "span (first start to last end), the share the busiest device is idle. Two schedules with "
             "equal iterations can differ here (ZB-H2 against ZB-H1)")},
        {QT_TR_NOOP("Throughput"), "samples_per_s",
         QT_TR_NOOP("Samples per second over all data-parallel replicas")},
        {QT_TR_NOOP("MFU"), "mfu_percent", QT_TR_NOOP("Model FLOPs utilisation: achieved over peak FLOP/s")},
        {QT_TR_NOOP("Peak memory"), "peak_memory_gib",
         QT_TR_NOOP("Highest memory of any device over the iteration")},
        {QT_TR_NOOP("Fits limit"), "fits_limit", QT_TR_NOOP("Every device's peak within the memory limit")},
    };
    const ColumnText& column = kColumns[section];
    if (role == Qt::DisplayRole) return tr(column.title);
    if (role == CsvRole) return QString::fromLatin1(column.csv);
    if (role == Qt::ToolTipRole && column.tip) return tr(column.tip);
    return {};
}

QVariant MetricsModel::raw(const ScheduleOutcome& o, int column) const {
    const ScheduleReport& r = o.prediction.report;
    switch (column) {
    case Schedule:
        return QString::fromStdString(o.title);
    case Iteration:
        return r.iterationUs;
    case Bubble:
        return r.time.bubbleRatio;
    case SpanBubble:
        return r.time.spanBubbleRatio;
    case Throughput:
        return r.unitless ? QVariant() : QVariant(r.samplesPerSecond);
    case Mfu:
        return r.flopsMeaningful ? QVariant(r.mfu) : QVariant();
    case PeakMemory:
        return peakBytes(r.memory);
    case Fits:
        return r.memory.fits;
    }
    return {};
}

QVariant MetricsModel::csv(const ScheduleOutcome& o, int column) const {
    const ScheduleReport& r = o.prediction.report;
    const auto number = [](double v) { return QString::number(v, 'g', 10); };
    switch (column) {
    case Schedule:
        return QString::fromStdString(o.name);
    case Iteration: // units under unit costs
        return number(r.iterationUs);
    case Bubble:
        return number(100 * r.time.bubbleRatio);
    case SpanBubble:
        return number(100 * r.time.spanBubbleRatio);
    case Throughput:
        return r.unitless ? QString() : number(r.samplesPerSecond);
    case Mfu:
        return r.flopsMeaningful ? number(100 * r.mfu) : QString();
    case PeakMemory: // multiples of M_a under unit costs
        return number(r.unitless ? peakBytes(r.memory) : peakBytes(r.memory) / (1024.0 * 1024 * 1024));
    case Fits:
        return r.memory.limitBytes <= 0 ? QString()
               : r.memory.fits          ? QStringLiteral("yes")
                                        : QStringLiteral("no");
    }
    return {};
}

QVariant MetricsModel::display(const ScheduleOutcome& o, int column) const {
    const ScheduleReport& r = o.prediction.report;
    switch (column) {
    case Schedule:
        return QString::fromStdString(o.title);
    case Iteration:
        return r.unitless ? formatUnits(r.iterationUs) : formatMicros(r.iterationUs);
    case Bubble:
        return formatPercent(r.time.bubbleRatio);
    case SpanBubble:
        return formatPercent(r.time.spanBubbleRatio);
    case Throughput:
        return r.unitless ? QStringLiteral("–")
                          : tr("%1 samples/s").arg(QString::number(r.samplesPerSecond, 'f', 1));
    case Mfu:
        return r.flopsMeaningful ? formatPercent(r.mfu) : QStringLiteral("–");
    case PeakMemory:
        return r.unitless ? tr("%1 × M_a").arg(QString::number(peakBytes(r.memory), 'g', 4))
                          : formatBytes(peakBytes(r.memory));
    case Fits:
        if (r.memory.limitBytes <= 0) return tr("no limit");
        if (r.memory.fits) return tr("yes");
        return r.memory.limitIsGpuMemory ? tr("no (+%1 over GPU memory)").arg(formatBytes(r.memory.overBytes))
                                         : tr("no (+%1)").arg(formatBytes(r.memory.overBytes));
    }
    return {};
}

QVariant MetricsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ScheduleOutcome& o = m_result->outcomes[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        if (const QString d = delta(o, index.column()); !d.isEmpty())
            return display(o, index.column()).toString() + d;
        return display(o, index.column());
    case SortRole:
        return raw(o, index.column());
    case CsvRole:
        return csv(o, index.column());
    case NameRole:
        return QString::fromStdString(o.name);
    case Qt::TextAlignmentRole:
        return index.column() == Schedule ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                          : int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == Fits && !o.prediction.report.memory.fits) return QColor(0xb0, 0x20, 0x20);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == Schedule) {
            // A searched order says how good it is (zb-auto: its lower bound and gap).
            QString tip = QString::fromStdString(o.prediction.report.costs.text);
            if (!o.prediction.schedule.notes.empty())
                tip += QStringLiteral("\n") + QString::fromStdString(o.prediction.schedule.notes);
            return tip;
        }
        if (index.column() == Mfu && !o.prediction.report.flopsMeaningful)
            return QString::fromStdString(o.prediction.report.flopsNote);
        return {};
    default:
        return {};
    }
}

QString modelToCsv(const QAbstractItemModel& model, int role) {
    auto cell = [](QString text) {
        if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) ||
            text.contains(QLatin1Char('\n')))
            text = QLatin1Char('"') + text.replace(QLatin1String("\""), QLatin1String("\"\"")) +
                   QLatin1Char('"');
        return text;
    };
    QStringList lines;
    QStringList header;
    for (int c = 0; c < model.columnCount(); ++c)
        header << cell(model.headerData(c, Qt::Horizontal, role).toString());
    lines << header.join(QLatin1Char(','));
    for (int r = 0; r < model.rowCount(); ++r) {
        QStringList row;
        for (int c = 0; c < model.columnCount(); ++c) row << cell(model.index(r, c).data(role).toString());
        lines << row.join(QLatin1Char(','));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace stagecraft::gui
