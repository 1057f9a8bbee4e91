#include "error.h"

namespace stagecraft {

namespace {
std::string withLocation(const std::string& source, int line, int column, const std::string& message) {
    // Appended piece by piece: GCC 12 at -O3 misreports `"literal" + std::string` here (-Wrestrict).
    std::string where = source;
    if (line > 0) {
        if (!where.empty()) where += ' ';
        where.append("line ").append(std::to_string(line));
        if (column > 0) where.append(", column ").append(std::to_string(column));
    }
    if (where.empty()) return message;
    return where.append(": ").append(message);
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
