#pragma once
// What a person reads for each project field: "Pipeline stages (pp)" rather than
// "parallel.pp", and why a field does not matter under the current settings. Forms, undo texts
// and reports use these words, so a field is called the same everywhere.

#include "project/project_fields.h"

#include <optional>
#include <string>
#include <string_view>

namespace stagecraft {

/// "Pipeline stages (pp)", "Memory limit (GiB)". A field without an entry in the table gets its
/// key in words with its unit ("Limit microbatches").
std::string fieldLabel(const ProjectField& field);

/// Whether the table names the field (a test checks that every field has its words).
bool hasFieldLabel(std::string_view path);

/// `text` (a core message: "parallel.pp × parallel.dp × parallel.tp = 4 × 4 × 1 ...") with every
/// dotted field path in it replaced by the field's label ("Pipeline stages (pp) × Data parallel
/// (dp) × ..."), for a form that shows the labels. A path followed by an index or a sub-key
/// ("costs.stages[0].stage") stays as written.
std::string withFieldLabels(std::string_view text);

/// Why `field` has no effect on the prediction of `project` (e.g. a manual cost while the cost
/// model is analytic), in words; nullopt when it is used.
std::optional<std::string> fieldIgnoredReason(const ProjectField& field, const Project& project);

} // namespace stagecraft
