#pragma once
// The `*.stagecraft.json` file format (docs/project-format.md) and `--set` overrides. Both are
// driven by the field table (project_fields.h), so every field is read, written and settable.
//
// Reading checks the syntax, the keys, the types and each field's own range; rules between
// fields (hidden % heads, GPU count, known schedules) are project_validate.h's, checked after
// `--set` overrides have been applied.

#include "project/project.h"
#include "size_limits.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace stagecraft {

/// The project as JSON: `stagecraft` first, then the table's order, 2-space indent, every field
/// written, a trailing newline. Equal projects give identical text.
std::string projectToJson(const Project& project);

/// Parses a project. Throws ParseError naming `source`:
///   project.json    malformed JSON (with line and column), too large, nested too deep, duplicate key
///   project.version `stagecraft` missing, not an integer, newer or unknown format
///   project.key     unknown key (the message lists the valid keys of that object)
///   project.type    wrong JSON type ("model.layers = \"abc\": must be an integer")
///   project.range   a value outside its field's range ("parallel.pp = 0: must be in 1..4096")
/// Keys that are missing take the struct defaults (Project{}).
Project parseProject(std::string_view text, const std::string& source);

/// readTextFile + parseProject, with the path as the source.
Project readProject(const std::filesystem::path& path);

/// Writes projectToJson atomically. Throws ValidationError("project.field") first when a field is
/// out of its range, so that every file written can be read back.
void writeProject(const Project& project, const std::filesystem::path& path);

/// One `--set` override: `dottedPath` is a field path ("parallel.pp", "schedules") and `value` its
/// text: an integer, a number, a string, an enum name, names separated by commas ("1f1b,zb-v"),
/// or stage costs "stage:f:b:w" separated by commas ("0:1200:1100:600,3:900:900:450"); an empty
/// value clears a list. Throws ValidationError: "project.key" for an unknown path (listing the
/// valid paths of that section, or the sections), "project.type" for text of the wrong kind,
/// "project.field" for a value out of range.
void setProjectField(Project& project, std::string_view dottedPath, std::string_view value);

/// `assignment` is "path=value" (the text after `--set`); splits at the first '=' and calls
/// setProjectField. Throws ValidationError("project.set") when there is no '='.
void applyProjectOverride(Project& project, std::string_view assignment);

} // namespace stagecraft
