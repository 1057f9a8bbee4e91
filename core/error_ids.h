#pragma once
// The table of every error id core and the front ends report: what it means and whether it is the
// user's input (exit status 2 in the command-line programs) or a failure of the run (status 1).
// Programs decide from this table, never by comparing message texts; a test checks that every id
// the sources throw is listed here and that docs/errors.md lists the same ids.

#include "error.h"

#include <span>
#include <string_view>

namespace stagecraft {

enum class ErrorClass : std::uint8_t {
    Input,   ///< the input (file, field, option) is wrong: fix it and run again
    Failure, ///< the input was fine, the run failed (a file could not be written, rendering failed)
};

struct ErrorIdInfo {
    std::string_view id; ///< "project.field"
    ErrorClass errorClass;
    std::string_view meaning; ///< one line for docs/errors.md
};

/// Every id, sorted by name.
std::span<const ErrorIdInfo> errorIds();

/// The entry of `id`, or nullptr.
const ErrorIdInfo* findErrorId(std::string_view id);

/// ParseError and ValidationError are always Input; other errors take their id's class, and an id
/// missing from the table counts as a Failure.
ErrorClass errorClassOf(const Error& error);

} // namespace stagecraft
