#pragma once
// One schedule being designed by hand in the window: core's ScheduleEditor on the order of a
// shown schedule, under the project's costs, and the edits applied so far (the edit list a user
// saves). Moves that would break the order are tried and reported, never kept: the chart always
// shows a schedule that runs. Undo is core's: each applied edit returns its exact inverse.

#include "edit/schedule_editor.h"
#include "eval/evaluation.h"
#include "io/edit_list.h"

#include <optional>
#include <string>
#include <vector>

namespace stagecraft::gui {

/// What an edit would do, tried and taken back.
struct EditTrial {
    EditBreak broken;         ///< kind None: the order runs after it
    std::vector<Op> involved; ///< the ops of the ring, or the op and the dependency it runs before
    /// The order with the edit in it, when it runs and the trial was asked for it (a live preview).
    std::optional<ImportedSchedule> edited;
};

/// Several edits kept as one step (a helper's moves, a move and its repair): each edit's inverse,
/// the step's inverse (the edits' inverses, last edit first) and what the order is after them.
struct EditStep {
    std::vector<Edit> edits;
    std::vector<Edit> inverse;
    EditBreak broken; ///< kind None: kept; else the step was taken back
};

class ScheduleEditSession {
  public:
    /// Starts from the order `baseName` has under `project` (its generator's, with the project's
    /// costs in the split convention). Throws stagecraft::Error when the schedule cannot be edited
    /// (core's "edit.schedule": syncs or overlapped slots in its order) or generated.
    ScheduleEditSession(const Project& project, const std::string& baseName);

    const std::string& baseName() const { return m_base.schedule; }
    /// The name the edited schedule goes by in the chart and the Metrics table.
    std::string editedName() const { return "edited from " + m_base.schedule; }
    const ScheduleEditor& editor() const { return m_editor; }

    /// What `edits`, applied in turn, would break, without keeping them (kind None: the order
    /// runs after the last). Throws like applyStep(), with nothing changed. `withOrder`: also copy the
    /// order they make when it runs (EditTrial::edited).
    EditTrial trial(const std::vector<Edit>& edits, bool withOrder = false);
    /// Applies `edits` in turn as one step, kept (and recorded) when the order runs after the last
    /// of them (the edits between may break it: a move and the repair that mends it). Otherwise
    /// the whole step is taken back; its `broken` says why. Throws ValidationError ("edit.*") when
    /// an edit cannot apply at all, with nothing kept.
    EditStep applyStep(const std::vector<Edit>& edits);
    /// Undoes the last step of `edits` edits (a single edit: 1) with its inverse.
    void revert(const std::vector<Edit>& inverse, std::size_t edits = 1);

    /// The edited order as an imported schedule of the analysis.
    ImportedSchedule imported() const;
    /// The edited order under the name a file of it carries ("zb-h1-edited").
    Schedule editedSchedule() const;
    /// The edit list file (docs/editing.md) that replays this design from its base.
    std::string editListJson() const;
    std::size_t editCount() const { return m_texts.size(); }

  private:
    /// Applies `edits` in turn and returns their inverse (the last edit's first); on a throw the
    /// ones applied are taken back and the error passes on.
    std::vector<Edit> applyInTurn(const std::vector<Edit>& edits);

    EditBase m_base;
    ScheduleEditor m_editor;
    std::vector<std::string> m_texts; ///< the applied edits' text forms, in order
};

} // namespace stagecraft::gui
