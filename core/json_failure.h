#pragma once
// Where and why nlohmann's JSON parser gave up on a text, for the readers' ParseErrors. The
// library reports a byte for its syntax errors only; a number that overflows (1e400) or other
// failures raised while parsing come without one, so the position is recovered by a second,
// event-only pass over the text that records where the parser stopped.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace stagecraft {

struct TextPosition {
    int line = 0;   ///< 1-based; 0 when unknown
    int column = 0; ///< 1-based, in bytes
};

/// Line and column of byte `offset` of `text` (clamped to the text).
TextPosition textPosition(std::string_view text, std::size_t offset);
/// Line and column of byte `offset` of the file at `path`, read in blocks (clamped to the file).
TextPosition textPosition(const std::filesystem::path& path, std::uint64_t offset);

/// Where nlohmann's parser fails on `text`: the line and column of the last byte it read
/// (0, 0 when it parses). Only call it on the error path: it parses the text once more.
TextPosition jsonFailurePosition(std::string_view text);

/// The first failure of nlohmann's parser on a text: where (0, 0 when it parses) and why.
struct JsonFailure {
    bool failed = false;
    TextPosition at;
    std::string reason; ///< as jsonFailureReason gives it
};

/// Parses `text`, or the file at `path` block by block, once more with nlohmann's parser
/// (events only: no document is built) to find its first failure. For the error path of readers
/// that check JSON themselves: their message is the library's.
JsonFailure findJsonFailure(std::string_view text);
JsonFailure findJsonFailure(const std::filesystem::path& path);

/// The library's message without its "[json.exception.x.n] parse error at line L, column C: "
/// prefix, and with bytes that are not printable ASCII written as \xNN (the message may quote a
/// token of invalid UTF-8).
std::string jsonFailureReason(const nlohmann::json::exception& failure);

} // namespace stagecraft
