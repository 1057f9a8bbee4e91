#pragma once
// Minimal UTF-8 decoding and encoding, for the writers and the readers: titles come from users
// and files, and one bad byte must not make an SVG unparsable or a TikZ file uncompilable; the
// JSON scanners encode \u escapes with the same code.

#include <cstddef>
#include <string_view>

namespace stagecraft {

inline constexpr char32_t kReplacementChar = 0xFFFD;

/// Decodes the code point at `pos` and advances `pos` past it. An invalid, truncated or
/// overlong sequence or a surrogate yields kReplacementChar and advances one byte.
char32_t nextCodePoint(std::string_view text, std::size_t& pos);

/// Appends the UTF-8 encoding of `cp` to `out`.
void appendUtf8(std::string& out, char32_t cp);

} // namespace stagecraft
