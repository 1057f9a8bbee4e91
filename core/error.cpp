#include "error.h"

namespace stagecraft {

namespace {
std::string withLocation(const std::string& source, int line, int column, const std::string& message) {
    std::string where = source;
    if (line > 0) {
        where += (where.empty() ? "" : " ") + std::string("line ") + std::to_string(line);
        if (column > 0) where += ", column " + std::to_string(column);
    }
    return where.empty() ? message : where + ": " + message;
}
} // namespace

Error::Error(std::string id, const std::string& message)
    : std::runtime_error("[" + id + "] " + message), m_id(std::move(id)), m_message(message) {}

ParseError::ParseError(std::string id, const std::string& source, int line, int column, const std::string& message)
    : Error(std::move(id), withLocation(source, line, column, message)), m_source(source), m_line(line),
      m_column(column) {}

ValidationError::ValidationError(std::string id, std::string field, const std::string& message)
    : Error(std::move(id), message), m_field(std::move(field)) {}

} // namespace stagecraft
