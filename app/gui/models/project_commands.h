#pragma once
// The one undo command: a project before and after an edit. Projects are small (a few dozen
// numbers), so snapshots are simpler and safer than per-field inverse operations.

#include "project/project.h"

#include <QString>
#include <QUndoCommand>

namespace stagecraft::gui {

class ProjectDocument;

class ProjectEditCommand : public QUndoCommand {
  public:
    /// `mergeKey` non-empty: consecutive commands with the same key merge (spin box steps).
    ProjectEditCommand(ProjectDocument* document, Project before, Project after, const QString& text,
                       QString mergeKey = {});

    void undo() override;
    void redo() override;
    int id() const override;
    bool mergeWith(const QUndoCommand* other) override;

  private:
    ProjectDocument* m_document;
    Project m_before;
    Project m_after;
    QString m_mergeKey;
};

} // namespace stagecraft::gui
