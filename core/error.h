#pragma once
// The one error funnel of core/: every user-facing failure is a stagecraft::Error whose message
// names the field or location, the offending value and the rule that was broken.

#include <stdexcept>
#include <string>

namespace stagecraft {

/// Base of every error core/ reports. `id()` is a stable dotted identifier ("project.field",
/// "csv.cell", "generator.constraint", ...) that tests and tools can match on; `what()` is
/// "[id] message" for people.
class Error : public std::runtime_error {
public:
    Error(std::string id, const std::string& message);
    const std::string& id() const noexcept { return m_id; }
    /// The message without the "[id] " prefix.
    const std::string& message() const noexcept { return m_message; }

private:
    std::string m_id;
    std::string m_message;
};

/// Malformed input text (JSON, CSV, action strings, traces). Carries the source name and a
/// 1-based line and column when known (0 = unknown).
class ParseError : public Error {
public:
    ParseError(std::string id, const std::string& source, int line, int column, const std::string& message);
    const std::string& source() const noexcept { return m_source; }
    int line() const noexcept { return m_line; }
    int column() const noexcept { return m_column; }

private:
    std::string m_source;
    int m_line;
    int m_column;
};

/// Well-formed input that breaks a rule: a project field out of range, a schedule constraint,
/// an invalid op order. `field()` is the dotted path or the schedule location it concerns.
class ValidationError : public Error {
public:
    ValidationError(std::string id, std::string field, const std::string& message);
    const std::string& field() const noexcept { return m_field; }

private:
    std::string m_field;
};

} // namespace stagecraft
