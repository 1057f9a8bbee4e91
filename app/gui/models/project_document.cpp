#include "gui/models/project_document.h"

#include "error.h"
#include "eval/evaluation_input.h"
#include "eval/schedule_checks.h"
#include "eval/trace_read_options.h"
#include "gui/models/gpu_catalogue.h"
#include "gui/models/project_commands.h"
#include "io/chrome_trace.h"
#include "io/measured_trace.h"
#include "io/schedule_file.h"
#include "project/field_labels.h"
#include "project/project_json.h"
#include "sqlite_rank_reader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <algorithm>

namespace stagecraft::gui {

bool isSampleFolder(const QString& folder) {
    const QDir dir(folder);
    if (dir.dirName() != QLatin1String("samples")) return false;
    QFile readme(dir.filePath(QStringLiteral("README.md")));
    return readme.open(QIODevice::ReadOnly) && readme.readLine().trimmed() == "# Sample projects";
}

bool isShippedSample(const QString& path) {
    return !path.isEmpty() && isSampleFolder(QFileInfo(path).absolutePath());
}

QString userCopyPath(const QString& path) {
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    return QDir(documents.isEmpty() ? QDir::homePath() : documents).filePath(QFileInfo(path).fileName());
}

ProjectDocument::ProjectDocument(QObject* parent) : QObject(parent), m_project(defaultProject()) {
    connect(&m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

QString ProjectDocument::displayName() const {
    return m_filePath.isEmpty() ? tr("Untitled") : QFileInfo(m_filePath).fileName();
}

void ProjectDocument::setProjectFromCommand(const Project& project) {
    m_project = project;
    m_checks.reset();
    emit projectChanged();
}

std::optional<QString> ProjectDocument::setField(const QString& path, const QString& value) {
    Project after = m_project;
    try {
        setProjectField(after, path.toStdString(), value.toStdString());
    } catch (const Error& e) {
        return QString::fromStdString(e.message());
    }
    if (after == m_project) return std::nullopt;
    // The undo text uses the words the form shows ("Set Pipeline stages (pp) to 8").
    const ProjectField* field = findProjectField(path.toStdString());
    const QString label = field ? QString::fromStdString(fieldLabel(*field)) : path;
    m_undo.push(new ProjectEditCommand(this, m_project, std::move(after),
                                       tr("Set %1 to %2").arg(label, value), path));
    return std::nullopt;
}

void ProjectDocument::setGpu(const GpuSpec& gpu) {
    Project after = m_project;
    applyGpu(after, gpu);
    if (after == m_project) return;
    m_undo.push(new ProjectEditCommand(
        this, m_project, std::move(after),
        tr("Choose GPU %1").arg(QString::fromUtf8(gpu.title.data(), qsizetype(gpu.title.size())))));
}

void ProjectDocument::setScheduleChecked(const QString& name, bool checked) {
    Project after = m_project;
    auto& list = after.schedules;
    const std::string key = name.toStdString();
    const auto it = std::find(list.begin(), list.end(), key);
    if (checked == (it != list.end())) return;
    if (checked) {
        list.push_back(key);
    } else {
        list.erase(it);
    }
    m_undo.push(new ProjectEditCommand(this, m_project, std::move(after),
                                       checked ? tr("Show %1").arg(name) : tr("Hide %1").arg(name)));
}

void ProjectDocument::applyProject(const Project& project, const QString& text) {
    if (project == m_project) return;
    m_undo.push(new ProjectEditCommand(this, m_project, project, text));
}

void ProjectDocument::reset(const Project& project, const QString& filePath) {
    m_undo.clear();
    m_proposedSavePath.clear();
    m_project = project;
    m_checks.reset();
    m_imported.clear();
    m_trace.reset();
    if (filePath != m_filePath) {
        m_filePath = filePath;
        emit filePathChanged(m_filePath);
    }
    m_undo.setClean();
    emit importedChanged();
    emit traceChanged();
    emit projectChanged();
}

void ProjectDocument::open(const QString& path) {
    Project project = readProject(path.toStdString());
    reset(project, path);
}

void ProjectDocument::saveAs(const QString& path) {
    writeProject(m_project, path.toStdString());
    m_proposedSavePath.clear();
    if (path != m_filePath) {
        m_filePath = path;
        emit filePathChanged(m_filePath);
    }
    m_undo.setClean();
}

void ProjectDocument::proposeSaveAs(const QString& path) {
    m_proposedSavePath = path;
}

QByteArray ProjectDocument::toJson() const {
    return QByteArray::fromStdString(projectToJson(m_project));
}

QString ProjectDocument::importSchedule(const QString& path) {
    ImportedSchedule imported = importScheduleFile(path.toStdString());
    // Names must be unique in the picker and the metrics table.
    const QString base = QFileInfo(path).fileName();
    QString name = base;
    for (int n = 2; std::any_of(m_imported.begin(), m_imported.end(),
                                [&](const ImportedSchedule& s) { return s.name == name.toStdString(); });
         ++n)
        name = QStringLiteral("%1 (%2)").arg(base).arg(n);
    imported.name = name.toStdString();
    m_imported.push_back(std::move(imported));
    emit importedChanged();
    // Core evaluates the file on its own pipeline (projectForSchedule): the project is not
    // changed, so the registered schedules keep their parameters next to it.
    emit projectChanged();
    return {};
}

void ProjectDocument::setImportedChecked(const QString& name, bool checked) {
    for (ImportedSchedule& s : m_imported)
        if (s.name == name.toStdString() && s.checked != checked) {
            s.checked = checked;
            emit importedChanged();
            emit projectChanged();
        }
}

void ProjectDocument::removeImported(const QString& name) {
    const auto it = std::find_if(m_imported.begin(), m_imported.end(),
                                 [&](const ImportedSchedule& s) { return s.name == name.toStdString(); });
    if (it == m_imported.end()) return;
    m_imported.erase(it);
    emit importedChanged();
    emit projectChanged();
}

void ProjectDocument::openTrace(const QString& path) {
    openTraces(QStringList{path});
}

void ProjectDocument::openTraces(const QStringList& paths) {
    std::vector<std::filesystem::path> files;
    for (const QString& p : paths) files.emplace_back(p.toStdString());
    // A new trace opens at its last iteration, as in the CLI and the viewer.
    EvaluationInput reading;
    reading.sqliteReader = sqliteRankReader();
    m_trace = loadMeasuredTrace(files, measuredTraceOptions(reading));
    m_traceReading = reading;
    emit traceChanged();
    emit projectChanged();
}

void ProjectDocument::setTraceReading(int iteration, bool median) {
    EvaluationInput reading = m_traceReading;
    reading.sqliteReader = sqliteRankReader();
    reading.traceIteration = iteration;
    reading.traceMedian = median;
    if (m_trace && !m_trace->files.empty()) {
        MeasuredTrace again = loadMeasuredTrace(m_trace->files, measuredTraceOptions(reading));
        m_trace = std::move(again);
    }
    m_traceReading = reading;
    emit traceChanged();
    emit projectChanged();
}

void ProjectDocument::setProjectTiming(bool useProject) {
    if (m_traceReading.projectTiming == useProject) return;
    m_traceReading.projectTiming = useProject;
    emit projectChanged();
}

void ProjectDocument::setTrace(MeasuredTrace trace) {
    m_trace = std::move(trace);
    emit traceChanged();
    emit projectChanged();
}

void ProjectDocument::clearTrace() {
    if (!m_trace) return;
    m_trace.reset();
    emit traceChanged();
    emit projectChanged();
}

AnalysisRequest ProjectDocument::request() const {
    AnalysisRequest request{m_project, m_imported, m_trace, nullptr, {}};
    request.checks = scheduleChecks();
    request.timingFromTrace = !m_traceReading.projectTiming;
    return request;
}

std::shared_ptr<const ScheduleChecks> ProjectDocument::scheduleChecks() const {
    if (!m_checks) m_checks = checkSchedules(m_project);
    return m_checks;
}

} // namespace stagecraft::gui
