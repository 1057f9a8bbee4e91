#pragma once
// File ▸ Export: format (SVG, PDF, PNG, TikZ), size in mm or pt, PNG resolution, palette, which
// of the shown schedules, a time range and what to draw, with a preview of the figure. Every format renders
// the same Scene. The format and file name are kept for the next export.

#include "gui/chart_export.h"

#include <QDialog>
#include <QPair>
#include <QTimer>
#include <functional>

class QCheckBox;
class QDialogButtonBox;
class QHBoxLayout;
class QSettings;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;
class QLabel;
class QListWidget;

namespace stagecraft::gui {

class ExportDialog : public QDialog {
    Q_OBJECT
  public:
    ExportDialog(const ChartSettings& current, QWidget* parent = nullptr);
    ExportRequest request() const;
    void setPath(const QString& path);
    /// The shown schedules (name, title), all checked: unchecking one leaves it out of the export.
    void setSchedules(const QList<QPair<QString, QString>>& schedules);
    /// How to build the figure of a request, for the preview (the Scene the export will draw).
    void setPreview(std::function<Scene(const ExportRequest&)> build);
    /// The preview as last drawn (tests).
    QPixmap preview() const;

  private:
    QHBoxLayout* createPathRow();
    QHBoxLayout* createSizeRow(const QSettings& settings);
    void createToggles(const ChartSettings& current);
    QHBoxLayout* createRangeRow();
    QDialogButtonBox* createButtons();
    void restoreFile(const QSettings& settings);
    void connectPreview();
    void browse();
    void formatChanged();
    void updateSizeHint();
    void updatePreview();

    QComboBox* m_format;
    QLineEdit* m_path;
    QDoubleSpinBox* m_width;
    QComboBox* m_unit;
    QSpinBox* m_dpi;
    QComboBox* m_palette;
    QCheckBox* m_legend;
    QCheckBox* m_axis;
    QCheckBox* m_labels;
    QCheckBox* m_title;
    QCheckBox* m_subtitle;
    QCheckBox* m_costLine;
    QCheckBox* m_unitTime;
    QCheckBox* m_comm;
    QCheckBox* m_overlay;
    QCheckBox* m_measuredRows; ///< the trace in rows of its own, under each device's prediction
    QCheckBox* m_standalone;
    QLabel* m_sizeHint;
    QListWidget* m_schedules;
    QDoubleSpinBox* m_from; ///< time range, µs (units at unit costs)
    QDoubleSpinBox* m_to;   ///< 0: to the end
    QLabel* m_preview;
    QTimer m_previewTimer;
    std::function<Scene(const ExportRequest&)> m_build;
};

} // namespace stagecraft::gui
