#pragma once
// Rules of a whole project: each field's range from the table (project_fields.h) and the rules
// between fields (heads divide hidden, the layout fits the cluster, stage overrides name real
// stages, schedules are registered). Whether the layers split into one schedule's stages is
// checked per schedule by checkLayersFit (project.h).

#include "project/project.h"

#include <string>
#include <vector>

namespace stagecraft {

struct FieldProblem {
    std::string field;   ///< dotted path of the field to highlight ("model.heads", "costs.stages")
    std::string message; ///< names the field, the value and the rule
    /// Every field the rule reads, `field` first: a form shows a rule between fields under the
    /// one that was edited (edit pp, read the cluster rule under pp).
    std::vector<std::string> fields;
};

/// Every problem, ranges first in table order, then the rules between fields (a rule is skipped
/// while one of its fields is out of range). Empty when the project is valid.
std::vector<FieldProblem> findProjectProblems(const Project& project);

/// Throws ValidationError("project.field", field, message) for the first problem; the message
/// ends with "(and N more problems)" when there are others.
void validateProject(const Project& project);

} // namespace stagecraft
