#pragma once
// A small pull scanner over JSON text for the readers of big foreign traces (torch profiler,
// Nsight Systems exports): it walks the text once, hands out strings as views into the text
// where they hold no escape, and skips whatever a reader does not ask for without building it.
// A DOM parser spends most of its time allocating values a trace reader throws away; this one
// reads hundreds of MB/s. Every malformed byte is a ParseError naming the source, line and column.

#include <cstddef>
#include <string>
#include <string_view>

namespace stagecraft {

class JsonScanner {
  public:
    /// `id` is the error id of malformed text ("trace.json"); `source` names the text in messages.
    JsonScanner(std::string_view text, std::string source, std::string id);

    /// Skips blanks; true when the text has nothing left.
    bool atEnd();
    /// The next significant character without consuming it ('\0' at the end).
    char peek();

    /// Object and array walking. Usage:
    ///   scanner.beginObject();
    ///   while (scanner.nextKey(key)) { ... read or skip the value ... }
    /// nextKey consumes the separating ',' and the ':' after the key; it returns false after '}'.
    void beginObject();
    bool nextKey(std::string_view& key);
    void beginArray();
    bool nextElement(); ///< true when another element follows (consumes ','), false after ']'

    /// A string value; a view into the text, or into an internal buffer when it had escapes
    /// (valid until the next call that reads a string).
    std::string_view readString();
    /// A number value; also accepts a string holding a number (Kineto writes some ids as text).
    double readNumber();
    /// A number, string, true, false or null; numbers and numeric strings give their value,
    /// anything else `fallback` (whatever was there is consumed).
    double readNumberOr(double fallback);
    /// Skips one value of any type (nesting is limited to 64 levels).
    void skipValue();

    /// Byte offset of the next unread character.
    std::size_t offset() const { return std::size_t(m_pos - m_begin); }
    const std::string& source() const { return m_source; }
    /// Throws ParseError at the current position.
    [[noreturn]] void fail(const std::string& message) const;

  private:
    void skipBlanks();
    void expect(char c, const char* what);
    void skipString();
    void skipNumber();
    void skipLiteral();
    void skipNested(int depth);

    const char* m_begin;
    const char* m_pos;
    const char* m_end;
    std::string m_source;
    std::string m_id;
    std::string m_scratch;
    int m_depth = 0;
    bool m_first = false; ///< the next key or element is the first of its object or array
};

} // namespace stagecraft
