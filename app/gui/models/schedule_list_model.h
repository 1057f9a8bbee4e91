#pragma once
// The schedule picker's model: one checkable row per registered schedule, then one per imported
// schedule file. A registered schedule whose rules the project's parameters break is disabled
// and its tooltip is core's constraint message.

#include <QAbstractListModel>
#include <optional>
#include <string>
#include <vector>

namespace stagecraft::gui {

class ProjectDocument;

class ScheduleListModel : public QAbstractListModel {
    Q_OBJECT
  public:
    enum Role {
        NameRole = Qt::UserRole + 1, ///< registry or imported name (QString)
        ProblemRole,                 ///< why it cannot run (QString, empty when it can)
        ImportedRole,                ///< bool
    };

    explicit ScheduleListModel(ProjectDocument* document, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QHash<int, QByteArray> roleNames() const override;

    /// Row of a schedule by name, -1 when absent.
    int rowOf(const QString& name) const;

  private:
    struct Row {
        QString name;
        QString title;
        QString summary;
        std::optional<QString> problem;
        bool imported = false;
        bool checked = false;
    };
    std::vector<Row> buildRows() const;
    void refresh();

    ProjectDocument* m_document;
    std::vector<Row> m_rows;
};

} // namespace stagecraft::gui
