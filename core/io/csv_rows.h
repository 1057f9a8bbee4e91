#pragma once
// The row and cell splitting torch's schedule CSVs share (compute-only and compute+comms): one row
// per rank, cells separated by commas, blanks around a cell ignored, a UTF-8 BOM and trailing
// blank lines dropped. Both readers walk a file through these, so they agree on rows and columns.

#include <cstddef>
#include <string_view>

namespace stagecraft::csv {

inline bool isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

inline std::string_view trimBlanks(std::string_view text) {
    while (!text.empty() && isBlank(text.front())) text.remove_prefix(1);
    while (!text.empty() && isBlank(text.back())) text.remove_suffix(1);
    return text;
}

/// The file's rows without a leading BOM and trailing newlines or blank lines (they are not ranks).
inline std::string_view body(std::string_view text) {
    constexpr std::string_view kBom = "\xEF\xBB\xBF";
    if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
    while (!text.empty() && (isBlank(text.back()) || text.back() == '\n')) text.remove_suffix(1);
    return text;
}

/// Calls `visit(row, line)` for every line of `text` (0-based rows; `text` as body() returns it).
template <typename Visit>
void forEachRow(std::string_view text, Visit&& visit) {
    int row = 0;
    std::size_t lineStart = 0;
    while (lineStart <= text.size()) {
        std::size_t lineEnd = text.find('\n', lineStart);
        if (lineEnd == std::string_view::npos) lineEnd = text.size();
        visit(row, text.substr(lineStart, lineEnd - lineStart));
        ++row;
        lineStart = lineEnd + 1;
    }
}

/// Calls `visit(col, cell)` for every comma-separated cell of `line`, trimmed (1-based columns).
template <typename Visit>
void forEachCell(std::string_view line, Visit&& visit) {
    int col = 1;
    std::size_t cellStart = 0;
    for (;;) {
        std::size_t cellEnd = line.find(',', cellStart);
        const bool last = cellEnd == std::string_view::npos;
        if (last) cellEnd = line.size();
        visit(col, trimBlanks(line.substr(cellStart, cellEnd - cellStart)));
        if (last) break;
        cellStart = cellEnd + 1;
        ++col;
    }
}

} // namespace stagecraft::csv
