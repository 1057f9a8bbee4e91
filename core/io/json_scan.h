#pragma once
// A pull reader of JSON for the readers of big foreign traces (torch profiler, Nsight Systems
// exports): the reader asks for the keys and values it wants and skips the rest without building
// it. It steers io/json_stream.h's scanner, so the text is checked by the one JSON grammar the
// trace readers share (nlohmann's rules: strict numbers, valid UTF-8, paired surrogates), and a
// file is read in blocks: memory holds one block and what the reader keeps, never the file.
// Every malformed byte is a ParseError naming the source, line and column and what was expected.

#include "io/json_stream.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace stagecraft {

class JsonScanner {
  public:
    /// Reads `text` (kept by the caller while the scanner lives); `source` names it in messages and
    /// `id` is the error id of malformed text ("trace.json").
    JsonScanner(std::string_view text, std::string source, std::string id);
    /// As above, handing the text to the scanner in blocks of `blockBytes`, as a file is read.
    JsonScanner(std::string_view text, std::string source, std::string id, std::size_t blockBytes);
    /// Reads the file at `path` block by block; messages name it by its path.
    JsonScanner(const std::filesystem::path& path, std::string id,
                std::size_t blockBytes = std::size_t(1) << 20);

    /// Skips blanks; true when the text has nothing left.
    bool atEnd();
    /// The next significant character without consuming it ('\0' at the end).
    char peek();

    /// Object and array walking. Usage:
    ///   scanner.beginObject();
    ///   while (scanner.nextKey(key)) { ... read or skip the value ... }
    /// nextKey consumes the separating ',' and the ':' after the key; it returns false after '}'.
    /// The key stays valid until the next nextKey.
    void beginObject();
    bool nextKey(std::string_view& key);
    void beginArray();
    bool nextElement(); ///< true when another element follows (consumes ','), false after ']'

    /// A string value, escapes decoded; valid until the next call on the scanner.
    std::string_view readString();
    /// A number value; also accepts a string holding a number (Kineto writes some ids as text).
    double readNumber();
    /// A number, string, true, false or null; numbers and numeric strings give their value,
    /// anything else `fallback` (whatever was there is consumed).
    double readNumberOr(double fallback);
    /// Skips one value of any type (nesting is limited to 64 levels).
    void skipValue();

    /// Byte offset of the next unread character.
    std::uint64_t offset() const { return m_bytes.offset(); }
    const std::string& source() const { return m_source; }
    /// Throws ParseError at the current position.
    [[noreturn]] void fail(const std::string& message) const;

  private:
    /// Runs `step`, turning the scanner's syntax errors into ParseErrors at their position.
    template <typename Step>
    auto checked(Step&& step);
    [[noreturn]] void failAt(std::uint64_t offset, const std::string& message) const;
    /// The next significant byte after blanks, -1 at the end.
    int nextByte();
    void open(char bracket, const char* what);

    ByteSource m_bytes;
    JsonStreamScanner m_json;
    std::string_view m_text; ///< the text read from memory; empty for a file
    std::string m_source;
    std::string m_id;
    std::string m_key, m_decoded;
    int m_depth = 0;
    bool m_first = false; ///< the next key or element is the first of its object or array
};

} // namespace stagecraft
