#pragma once
// Small helpers of the ir's text readers (action strings, op names): one copy for both.

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace stagecraft::parse {

/// `text` without blanks, tabs and a trailing carriage return around it.
inline std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

/// True when `text` is one or more decimal digits and nothing else.
inline bool isDigits(std::string_view text) {
    if (text.empty()) return false;
    for (const char c : text)
        if (c < '0' || c > '9') return false;
    return true;
}

/// A reader's failure: stores `message` in `why` when given, and is the nullopt the reader returns.
inline std::nullopt_t fail(std::string* why, std::string message) {
    if (why) *why = std::move(message);
    return std::nullopt;
}

} // namespace stagecraft::parse
