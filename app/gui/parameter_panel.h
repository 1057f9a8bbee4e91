#pragma once
// The "Parameters" dock: one form row per project field, generated from core's projectFields()
// (spin boxes with the field's range and unit, combos for enums, the help as tooltip), grouped by
// section. A refused value shows core's message under its field; the project keeps its last
// valid value, and so does the chart. The GPU catalogue combo sits above the cluster fields.

#include <QHash>
#include <QPointer>
#include <QWidget>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;
class QVBoxLayout;

namespace stagecraft {
struct FieldProblem;
struct ProjectField;
struct FitCriticalPath;
} // namespace stagecraft

namespace stagecraft::gui {

class ProjectDocument;

class ParameterPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ParameterPanel(ProjectDocument* document, QWidget* parent = nullptr);

    /// The editor widget of a field (tests drive it), null for an unknown path.
    QWidget* editorFor(const QString& path) const;
    /// The inline message under a field ("" when hidden).
    QString messageFor(const QString& path) const;
    QComboBox* gpuCombo() const { return m_gpuCombo; }

    /// Show core's problems of the project (from project validation) in the form's words, each
    /// under its field; a rule between fields goes under the one edited last when the rule reads
    /// it (edit pp, read the cluster rule under pp). Clears the others. Messages of refused edits
    /// stay until that field is edited again.
    void setProblems(const std::vector<FieldProblem>& problems);
    /// Labels of the fields whose typed value was refused (the project keeps its last valid value,
    /// so the chart is not the form's while this is not empty).
    QStringList refusedFields() const;

  signals:
    /// A field was refused or accepted: for the status bar.
    void fieldMessage(const QString& path, const QString& message);

  private:
    struct Row {
        const ProjectField* field = nullptr;
        QWidget* editor = nullptr;
        QLabel* message = nullptr;
        QLabel* label = nullptr;
        QString tip;      ///< the field's tooltip (path, unit, help, range)
        QString rejected; ///< message of a refused edit, shown until the next edit
    };
    void build();
    QWidget* makeEditor(const ProjectField& field);
    void commit(const QString& path, const QString& text);
    void syncFromProject();
    void showMessage(Row& row, const QString& message);
    void syncGpuCombo();
    void buildRuntimeFitRow(QFormLayout* form);
    void syncRuntimeFit();
    /// The fitted run's critical path, measured and replayed, as a table for a tooltip.
    static QString criticalPathTable(const FitCriticalPath& path);
    bool eventFilter(QObject* watched, QEvent* event) override;

    ProjectDocument* m_document;
    QHash<QString, Row> m_rows;
    QHash<QString, QString> m_problems;
    QString m_lastEdited; ///< path of the field edited last
    QComboBox* m_gpuCombo = nullptr;
    QWidget* m_runtimeFitRow = nullptr; ///< "Timing": the calibrated project's runtime fit, if any
    QLabel* m_runtimeFitText = nullptr;
    QWidget* m_scrollViewport = nullptr; ///< receives wheel events over unfocused fields
    bool m_syncing = false;
};

} // namespace stagecraft::gui
