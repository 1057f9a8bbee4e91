#pragma once
// Text helpers shared by the project table, reader, `--set` parser and validator, so that every
// message quotes values the same way. Internal to core/project.

#include <string>
#include <string_view>

namespace stagecraft::detail {

/// Shortest text that parses back to exactly `value`; integral values below 1e15 without an
/// exponent ("1000000000", "312", "0.5", "1e-07").
std::string formatNumber(double value);

/// `text` in double quotes with JSON escapes, cut to about 60 bytes with "..." so that a huge
/// value cannot flood a message.
std::string quoted(std::string_view text);

/// True when `text` is well-formed UTF-8 (JSON strings must be).
bool isValidUtf8(std::string_view text);

} // namespace stagecraft::detail
