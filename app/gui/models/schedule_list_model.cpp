#include "gui/models/schedule_list_model.h"

#include "eval/schedule_checks.h"
#include "generators/registry.h"
#include "gui/models/project_document.h"

#include <algorithm>

namespace stagecraft::gui {
namespace {

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

} // namespace

ScheduleListModel::ScheduleListModel(ProjectDocument* document, QObject* parent)
    : QAbstractListModel(parent), m_document(document), m_rows(buildRows()) {
    connect(document, &ProjectDocument::projectChanged, this, &ScheduleListModel::refresh);
    connect(document, &ProjectDocument::importedChanged, this, &ScheduleListModel::refresh);
}

std::vector<ScheduleListModel::Row> ScheduleListModel::buildRows() const {
    std::vector<Row> rows;
    const Project& project = m_document->project();
    const auto checks = m_document->scheduleChecks(); // checked once per edit, shared with the analysis
    for (const CheckedSchedule& c : checks->schedules) {
        const GeneratorInfo& info = *c.info;
        Row row;
        row.name = qs(info.name);
        row.title = qs(info.title);
        row.summary = qs(info.summary);
        if (c.problem) row.problem = QString::fromStdString(c.problem->message);
        row.checked = std::find(project.schedules.begin(), project.schedules.end(), std::string(info.name)) !=
                      project.schedules.end();
        rows.push_back(std::move(row));
    }
    for (const ImportedSchedule& s : m_document->importedSchedules()) {
        Row row;
        row.name = QString::fromStdString(s.name);
        row.title = row.name;
        row.summary = tr("Imported from %1").arg(QString::fromStdString(s.path));
        row.imported = true;
        row.checked = s.checked;
        rows.push_back(std::move(row));
    }
    return rows;
}

void ScheduleListModel::refresh() {
    std::vector<Row> rows = buildRows();
    const bool sameNames = rows.size() == m_rows.size() &&
                           std::equal(rows.begin(), rows.end(), m_rows.begin(),
                                      [](const Row& a, const Row& b) { return a.name == b.name; });
    if (!sameNames) {
        beginResetModel();
        m_rows = std::move(rows);
        endResetModel();
        return;
    }
    m_rows = std::move(rows);
    if (!m_rows.empty()) emit dataChanged(index(0), index(int(m_rows.size()) - 1));
}

int ScheduleListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant ScheduleListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return row.title;
    case Qt::ToolTipRole:
        return row.problem ? tr("Not available: %1").arg(*row.problem) : row.summary;
    case Qt::CheckStateRole:
        return row.checked ? Qt::Checked : Qt::Unchecked;
    case NameRole:
        return row.name;
    case ProblemRole:
        return row.problem.value_or(QString());
    case ImportedRole:
        return row.imported;
    default:
        return {};
    }
}

bool ScheduleListModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::CheckStateRole || !index.isValid() ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    const Row& row = m_rows[std::size_t(index.row())];
    const bool checked = value.toInt() == Qt::Checked;
    // The document emits projectChanged, which refreshes the rows (and emits dataChanged).
    if (row.imported)
        m_document->setImportedChecked(row.name, checked);
    else
        m_document->setScheduleChecked(row.name, checked);
    return true;
}

Qt::ItemFlags ScheduleListModel::flags(const QModelIndex& index) const {
    if (!index.isValid() ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    const Row& row = m_rows[std::size_t(index.row())];
    Qt::ItemFlags f = Qt::ItemIsSelectable | Qt::ItemIsUserCheckable | Qt::ItemNeverHasChildren;
    if (!row.problem) f |= Qt::ItemIsEnabled;
    return f;
}

QHash<int, QByteArray> ScheduleListModel::roleNames() const {
    auto names = QAbstractListModel::roleNames();
    names.insert(NameRole, "name");
    names.insert(ProblemRole, "problem");
    names.insert(ImportedRole, "imported");
    return names;
}

int ScheduleListModel::rowOf(const QString& name) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].name == name) return int(i);
    return -1;
}

} // namespace stagecraft::gui
