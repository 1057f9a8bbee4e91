#pragma once
// Streaming JSON for readers of big files (Chrome traces of hundreds of MB): the text is read block
// by block and checked as it goes, and only the parts a reader asks for (one trace event at a
// time) are held in memory. Two pieces:
//   - JsonStreamScanner walks the text of a ByteSource and checks it against the JSON grammar with the
//     rules nlohmann's parser applies (strict numbers, strings of valid UTF-8 without raw control
//     characters, paired \u surrogates, a leading UTF-8 byte order mark allowed, numbers that do
//     not overflow a double). A reader steers it (which values to skip, which to keep whole).
//   - FlatObject holds one object whose text was checked, with its members and those of its
//     member objects one level down (a trace event and its args), as views into that text.
// On a syntax error the scanner throws JsonSyntaxError with the byte offset; readers turn it into
// their ParseError with the library's message and the line and column (io/json_failure.h).

#include <cstdint>
#include <deque>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

/// Thrown by JsonStreamScanner on text that is not JSON: where the scanner stopped, 0-based, and
/// what it expected there (readers that want the library's wording ask nlohmann's parser instead).
struct JsonSyntaxError {
    std::uint64_t offset = 0;
    const char* reason = "";
};

/// Thrown by JsonStreamScanner when a container opens at `depth` (containers already open) >= its limit.
struct JsonDepthError {};

/// The bytes of a text, from memory or from a file read in blocks. A reader may mark a position:
/// the bytes from the mark on then stay in memory, contiguous, until it releases the mark.
class ByteSource {
  public:
    explicit ByteSource(std::string_view text);
    /// Hands out `text` in blocks of `blockBytes` as a file is read (for tests and fuzzing of the
    /// block boundaries without files).
    ByteSource(std::string_view text, std::size_t blockBytes);
    /// Opens the file; throws Error("io.read") naming it and the OS reason.
    explicit ByteSource(const std::filesystem::path& path, std::size_t blockBytes = std::size_t(1) << 20);
    ~ByteSource();
    ByteSource(const ByteSource&) = delete;
    ByteSource& operator=(const ByteSource&) = delete;

    /// The byte at the current position, -1 at the end of the text.
    int peek() {
        if (m_pos == m_end && !refill()) return -1;
        return static_cast<unsigned char>(m_data[m_pos]);
    }
    void advance() { ++m_pos; }
    /// The bytes available from the current position on without reading more (at least one
    /// unless at the end).
    std::string_view available() {
        if (m_pos == m_end) refill();
        return {m_data + m_pos, m_end - m_pos};
    }
    void advance(std::size_t n) { m_pos += n; }

    /// Bytes read so far (the offset of the current position in the text).
    std::uint64_t offset() const { return m_base + m_pos; }

    /// Keeps the bytes from here on until release(); at most `limit` of them (more throws
    /// JsonMarkLimit).
    void mark(std::size_t limit);
    std::string_view marked() const { return {m_data + m_mark, m_pos - m_mark}; }
    void release() { m_marked = false; }

    bool fromFile() const { return m_fd >= 0; }
    const std::filesystem::path& path() const { return m_path; }

  private:
    bool refill();

    const char* m_data = nullptr;
    std::size_t m_pos = 0, m_end = 0;
    std::uint64_t m_base = 0; ///< offset in the text of m_data[0]
    int m_fd = -1;
    std::uint64_t m_size = 0; ///< of the file, for read_progress.h
    bool m_eof = true;
    std::filesystem::path m_path;
    std::vector<char> m_buffer;
    std::string_view m_unread; ///< text not yet handed out, when a text is read in blocks
    bool m_marked = false;
    std::size_t m_mark = 0, m_markLimit = 0;
};

/// Thrown when a marked region grows beyond the limit given to mark().
struct JsonMarkLimit {};

class JsonStreamScanner {
  public:
    JsonStreamScanner(ByteSource& source, int maxDepth) : m_in(source), m_maxDepth(maxDepth) {}

    /// Skips a UTF-8 byte order mark at the very start of the text.
    void skipByteOrderMark();
    /// Skips whitespace; the next byte (not consumed), -1 at the end.
    int next();
    /// Consumes `c`, which must come next after whitespace.
    void expect(char c);
    /// After whitespace, consumes ',' (true) or `close` (false).
    bool commaOr(char close);
    /// Checks and skips one value; `depth` is the count of containers open around it.
    void skipValue(int depth);
    /// Checks and reads a string (the next byte is '"'); escapes decoded.
    std::string readString();
    /// As readString, without a copy where it can: a view into the block at hand when the string
    /// lies in it without escapes or non-ASCII bytes, else `decoded` filled and viewed. Valid until
    /// the scanner or the source moves on.
    std::string_view readString(std::string& decoded);
    /// Checks a number (the next byte starts one) and returns its text, valid until the scanner or
    /// the source moves on.
    std::string_view readNumberText();
    /// Fails unless only whitespace follows.
    void expectEnd();

    [[noreturn]] void fail(const char* reason) const { throw JsonSyntaxError{m_in.offset(), reason}; }

  private:
    void skipString(std::string* out);
    void skipNumber() { (void)readNumberText(); }
    /// The length of the number at the start of the block at hand, 0 when it does not end there.
    std::size_t numberInBlock();
    void skipLiteral(std::string_view word);
    void skipEscape(std::string* out);
    void skipUtf8(int lead, std::string* out);
    int hex4();

    ByteSource& m_in;
    int m_maxDepth;
    std::string m_number; ///< the digits of the number being checked, for the overflow test
};

/// A value of a FlatObject.
struct FlatValue {
    enum class Type : std::uint8_t { Null, Boolean, Unsigned, Integer, Float, String, Object, Array };
    Type type = Type::Null;
    bool boolean = false;
    std::string_view raw;  ///< the value's JSON text
    std::string_view text; ///< String: the decoded text
    double number = 0;     ///< any number, as a double
    std::int64_t integer = 0;
    std::uint64_t unsignedValue = 0;
    std::uint8_t level = 2;             ///< Object: 0 the root, 1 a member of it, 2 deeper (no members)
    std::uint32_t first = 0, count = 0; ///< Object: its members (levels 0 and 1)

    bool isNumber() const { return type == Type::Unsigned || type == Type::Integer || type == Type::Float; }
    bool isInteger() const { return type == Type::Unsigned || type == Type::Integer; }
    bool isString() const { return type == Type::String; }
    bool isObject() const { return type == Type::Object; }
    /// As nlohmann's get<std::int64_t>(): an unsigned value above INT64_MAX wraps.
    std::int64_t asInt64() const {
        return type == Type::Unsigned  ? std::int64_t(unsignedValue)
               : type == Type::Integer ? integer
                                       : std::int64_t(number);
    }
};

struct FlatMember {
    std::string_view key;
    FlatValue value;
};

/// An object whose text JsonStreamScanner checked, read into its members (and the members of its
/// member objects). Views point into that text and into the object's own decoded strings; reuse
/// one FlatObject for many objects to reuse its storage.
class FlatObject {
  public:
    /// Reads `text`, the text of one object that JsonStreamScanner accepted.
    void read(std::string_view text);
    const FlatValue& root() const { return m_root; }
    /// The member `key` of `object` (the root or a member object); the last one when repeated,
    /// as nlohmann keeps it. Null when absent or when `object` is not an object.
    const FlatValue* find(const FlatValue& object, std::string_view key) const;

  private:
    /// Reads a value `level` objects deep; the members of objects at levels 0 and 1.
    FlatValue readValue(std::string_view& rest, int level);
    std::string_view readString(std::string_view& rest);

    FlatValue m_root;
    std::vector<FlatMember> m_members[2]; ///< of the root; of its member objects
    std::deque<std::string> m_decoded;
    std::size_t m_decodedUsed = 0;
};

} // namespace stagecraft
