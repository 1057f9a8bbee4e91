#pragma once
// File ▸ Export: format (SVG, PDF, PNG, TikZ), size in mm or pt, PNG resolution, palette and
// what to draw. Every format renders the same Scene.

#include "gui/chart_export.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;
class QLabel;

namespace stagecraft::gui {

class ExportDialog : public QDialog {
    Q_OBJECT
  public:
    ExportDialog(const ChartSettings& current, QWidget* parent = nullptr);
    ExportRequest request() const;
    void setPath(const QString& path);

  private:
    void browse();
    void formatChanged();
    void updateSizeHint();

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
};

} // namespace stagecraft::gui
