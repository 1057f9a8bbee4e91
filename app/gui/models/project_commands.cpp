#include "gui/models/project_commands.h"

#include "gui/models/project_document.h"

namespace stagecraft::gui {

namespace {
constexpr int kProjectEditId = 0x5343; // any constant shared by every mergeable edit
}

ProjectEditCommand::ProjectEditCommand(ProjectDocument* document, Project before, Project after,
                                       const QString& text, QString mergeKey)
    : m_document(document), m_before(std::move(before)), m_after(std::move(after)),
      m_mergeKey(std::move(mergeKey)) {
    setText(text);
}

void ProjectEditCommand::undo() {
    m_document->setProjectFromCommand(m_before);
}
void ProjectEditCommand::redo() {
    m_document->setProjectFromCommand(m_after);
}

int ProjectEditCommand::id() const {
    return m_mergeKey.isEmpty() ? -1 : kProjectEditId;
}

bool ProjectEditCommand::mergeWith(const QUndoCommand* other) {
    const auto* edit = dynamic_cast<const ProjectEditCommand*>(other);
    if (!edit || edit->m_mergeKey != m_mergeKey) return false;
    m_after = edit->m_after;
    setText(edit->text());
    // An edit merged back to where it started is no edit at all.
    if (m_after == m_before) setObsolete(true);
    return true;
}

} // namespace stagecraft::gui
