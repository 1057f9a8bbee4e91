#pragma once
// The open project: the Project itself, its file, the undo stack of every edit, the schedules
// imported from files and the measured trace. Widgets edit it only through these calls, so
// every change is undoable and every view hears of it through projectChanged().

#include "eval/evaluation.h"
#include "eval/evaluation_input.h"
#include "project/project.h"

#include <QObject>
#include <QString>
#include <QUndoStack>
#include <memory>
#include <optional>
#include <vector>

namespace stagecraft::gui {

struct GpuSpec;

/// Whether `folder` holds Stagecraft's shipped samples (the source tree's or an installed
/// share/stagecraft/samples): a folder named "samples" with the samples' README.
bool isSampleFolder(const QString& folder);
/// Whether `path` is one of the shipped samples: read-only templates that Save never overwrites.
bool isShippedSample(const QString& path);
/// Where Save proposes to write a copy of `path` that is not among the samples: the user's
/// documents folder, under the same file name.
QString userCopyPath(const QString& path);

class ProjectDocument : public QObject {
    Q_OBJECT
  public:
    explicit ProjectDocument(QObject* parent = nullptr);

    const Project& project() const { return m_project; }
    QString filePath() const { return m_filePath; }
    /// "name.stagecraft.json" or "Untitled" for the title bar.
    QString displayName() const;
    bool isModified() const { return !m_undo.isClean(); }
    QUndoStack* undoStack() { return &m_undo; }

    /// Set one field from its text (core's setProjectField rules). Returns the core message
    /// when the value is refused; the project is then unchanged. Consecutive edits of the same
    /// field merge into one undo step.
    std::optional<QString> setField(const QString& path, const QString& value);
    /// Fill the cluster fields from a catalogue GPU (one undo step).
    void setGpu(const GpuSpec& gpu);
    /// Show or hide a registered schedule (one undo step).
    void setScheduleChecked(const QString& name, bool checked);
    /// Replace the whole project as one undo step (used by tests and scripted edits).
    void applyProject(const Project& project, const QString& text);

    /// New / Open / recovery: a fresh project, clean undo stack, imported and trace dropped.
    void reset(const Project& project, const QString& filePath);
    /// Read a project file (throws stagecraft::Error).
    void open(const QString& path);
    /// Write atomically (throws stagecraft::Error); marks the document clean.
    void saveAs(const QString& path);
    /// The project as JSON text (autosave).
    QByteArray toJson() const;
    /// After an action that turns the project into another one (calibration replaces its costs
    /// with measured ones), the next Save asks where to write, proposing `path`, so the file it
    /// came from (a shipped sample, the user's design) stays as it was. Cleared by saveAs and reset.
    void proposeSaveAs(const QString& path);
    /// The path proposed by proposeSaveAs, or "" when Save may write to filePath().
    QString proposedSavePath() const { return m_proposedSavePath; }

    const std::vector<ImportedSchedule>& importedSchedules() const { return m_imported; }
    /// Read a schedule file (torch CSV or schedule JSON) and show it (throws stagecraft::Error).
    /// Costs are per pipeline device, so a schedule on another number of devices sets
    /// parallel.pp to its own (one undo step); the returned note says so ("" otherwise).
    QString importSchedule(const QString& path);
    void setImportedChecked(const QString& name, bool checked);
    void removeImported(const QString& name);

    const std::optional<MeasuredTrace>& trace() const { return m_trace; }
    /// Read a Chrome trace to overlay (throws stagecraft::Error when unreadable).
    void openTrace(const QString& path);
    /// Read several files as one measured run (one torch profiler trace per rank, Nsight Systems
    /// exports ...: core's readMeasuredTrace finds each format); throws stagecraft::Error.
    void openTraces(const QStringList& paths);
    void clearTrace();
    /// Show a trace already read (one refused for its shape, once the shape is applied).
    void setTrace(MeasuredTrace trace);
    /// How the trace is read: which iteration, or the median over its iterations (the CLI's
    /// --iteration and --median, through core's measuredTraceOptions). A new trace starts at the
    /// last iteration.
    const EvaluationInput& traceReading() const { return m_traceReading; }
    /// Reads the trace's files again with that iteration (an id of TraceInfo::iterationIds, -1
    /// the last) or the median; throws stagecraft::Error (the trace and its reading then stay).
    void setTraceReading(int iteration, bool median);
    /// A trace stagecraft-run wrote is predicted as the run predicted itself, unless `useProject`:
    /// then with the project's own costs.timing (the CLI's --project-timing; traceReading() keeps it).
    void setProjectTiming(bool useProject);

    /// What the analysis needs, copied (it runs on another thread), with scheduleChecks().
    AnalysisRequest request() const;
    /// Every registered schedule checked against the project, once per project change: the
    /// schedule list, the work estimate and the analysis all read these (eval/schedule_checks.h).
    std::shared_ptr<const ScheduleChecks> scheduleChecks() const;

  signals:
    void projectChanged();
    void filePathChanged(const QString& path);
    void modifiedChanged(bool modified);
    void importedChanged();
    void traceChanged();

  private:
    friend class ProjectEditCommand;
    void setProjectFromCommand(const Project& project);

    Project m_project;
    /// scheduleChecks() of m_project; null until asked for after a change.
    mutable std::shared_ptr<const ScheduleChecks> m_checks;
    QString m_filePath;
    QUndoStack m_undo;
    std::vector<ImportedSchedule> m_imported;
    std::optional<MeasuredTrace> m_trace;
    EvaluationInput m_traceReading;
    QString m_proposedSavePath;
};

} // namespace stagecraft::gui
