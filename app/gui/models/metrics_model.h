#pragma once
// The metrics table: one row per shown schedule with core's ScheduleReport figures. Display
// text is formatted; SortRole holds the raw number so a proxy sorts numerically.

#include "gui/models/analysis_runner.h"

#include <QAbstractTableModel>

namespace stagecraft::gui {

class MetricsModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Schedule, Iteration, Bubble, SpanBubble, Throughput, Mfu, PeakMemory, Fits, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< raw value (double, or the name)
        NameRole,                    ///< schedule name of the row
        CsvRole, ///< the plain number (no unit, no thousands separator) for CSV; its header names the unit
    };

    explicit MetricsModel(QObject* parent = nullptr);

    void setResult(AnalysisPtr result);
    const AnalysisPtr& result() const { return m_result; }
    /// The row named `edited` (a schedule designed by hand) shows its iteration, bubble and peak
    /// memory with the change against the row named `base`: "31 units (−2)". Empty: no deltas.
    void setEditedFrom(const QString& edited, const QString& base);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    QVariant display(const ScheduleOutcome& outcome, int column) const;
    QVariant raw(const ScheduleOutcome& outcome, int column) const;
    QVariant csv(const ScheduleOutcome& outcome, int column) const;
    /// " (−2 units)" of the edited row against its base; "" for other rows and columns.
    QString delta(const ScheduleOutcome& outcome, int column) const;

    AnalysisPtr m_result;
    std::string m_edited, m_base;
};

/// The rows of `model` (in its current order, e.g. a sorted proxy) as CSV with a header line.
/// Cells are the texts of `role` (the display texts by default; MetricsModel::CsvRole: plain
/// numbers under headers that name their units); fields with commas or quotes are quoted.
QString modelToCsv(const QAbstractItemModel& model, int role = Qt::DisplayRole);

} // namespace stagecraft::gui
