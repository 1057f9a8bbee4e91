#include "io/json_stream.h"

#include "error.h"
#include "io/read_progress.h"
#include "utf8.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace stagecraft {

// ---------------------------------------------------------------------------------------------
// ByteSource

ByteSource::ByteSource(std::string_view text) : m_data(text.data()), m_end(text.size()) {}

ByteSource::ByteSource(std::string_view text, std::size_t blockBytes)
    : m_eof(false), m_buffer(std::max<std::size_t>(blockBytes, 1)), m_unread(text) {
    m_data = m_buffer.data();
}

ByteSource::ByteSource(const std::filesystem::path& path, std::size_t blockBytes) : m_path(path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw Error("io.read", "cannot read '" + path.string() + "': it is a directory");
    m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0) throw Error("io.read", "cannot read '" + path.string() + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(m_fd, &st) == 0 && st.st_size > 0) m_size = std::uint64_t(st.st_size);
    m_buffer.resize(blockBytes);
    m_data = m_buffer.data();
    m_eof = false;
}

ByteSource::~ByteSource() {
    if (m_fd >= 0) ::close(m_fd);
}

void ByteSource::mark(std::size_t limit) {
    m_marked = true;
    m_mark = m_pos;
    m_markLimit = limit;
}

bool ByteSource::refill() {
    if (m_eof) return false;
    // Drop what was consumed (and is not marked), then read behind what is kept.
    const std::size_t keep = m_marked ? m_mark : m_pos;
    if (keep > 0) {
        std::memmove(m_buffer.data(), m_buffer.data() + keep, m_end - keep);
        m_base += keep;
        m_end -= keep;
        m_pos -= keep;
        if (m_marked) m_mark = 0;
    }
    if (m_end == m_buffer.size()) {
        // A marked region fills the buffer: it grows, up to the mark's limit.
        if (m_marked && m_end - m_mark >= m_markLimit) throw JsonMarkLimit{};
        m_buffer.resize(m_buffer.size() * 2);
    }
    m_data = m_buffer.data();
    if (m_fd < 0) {
        const std::size_t n = std::min(m_unread.size(), m_buffer.size() - m_end);
        std::memcpy(m_buffer.data() + m_end, m_unread.data(), n);
        m_unread.remove_prefix(n);
        m_end += n;
        m_eof = m_unread.empty();
        return m_pos < m_end;
    }
    for (;;) {
        const ssize_t n = ::read(m_fd, m_buffer.data() + m_end, m_buffer.size() - m_end);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw Error("io.read", "cannot read '" + m_path.string() + "': " + std::strerror(errno));
        }
        if (n == 0) {
            m_eof = true;
            return m_pos < m_end;
        }
        m_end += std::size_t(n);
        ReadProgress::report(m_base + m_end, m_size);
        return true;
    }
}

// ---------------------------------------------------------------------------------------------
// JsonStreamScanner

namespace {

bool isSpace(int c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/// Bytes a string holds as they are: printable ASCII but the quote and the backslash.
bool isPlain(unsigned char c) {
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

int hexValue(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

} // namespace

void JsonStreamScanner::skipByteOrderMark() {
    if (m_in.peek() != 0xEF) return;
    // As nlohmann: a text that starts like a byte order mark must be one.
    for (const int byte : {0xEF, 0xBB, 0xBF}) {
        if (m_in.peek() != byte)
            fail("a text may start with a UTF-8 byte order mark, not with a part of one");
        m_in.advance();
    }
}

int JsonStreamScanner::next() {
    // Whitespace a block at a time: between tokens is where a scanner spends its time.
    for (;;) {
        const std::string_view block = m_in.available();
        if (block.empty()) return -1;
        std::size_t n = 0;
        while (n < block.size() && isSpace(static_cast<unsigned char>(block[n]))) ++n;
        m_in.advance(n);
        if (n < block.size()) return static_cast<unsigned char>(block[n]);
    }
}

void JsonStreamScanner::expect(char c) {
    if (next() != static_cast<unsigned char>(c))
        fail(c == ':' ? "expected ':' after an object key" : "unexpected token");
    m_in.advance();
}

bool JsonStreamScanner::commaOr(char close) {
    const int c = next();
    if (c != ',' && c != static_cast<unsigned char>(close))
        fail(c == -1        ? "unexpected end of text"
             : close == '}' ? "expected ',' or '}' in an object"
                            : "expected ',' or ']' in an array");
    m_in.advance();
    return c == ',';
}

void JsonStreamScanner::expectEnd() {
    // nlohmann's lexer takes a NUL byte between tokens for the end of the input: what follows
    // one after the value is ignored (found by fuzz_json_stream).
    const int c = next();
    if (c != -1 && c != 0) fail("text after the end of the JSON value");
}

void JsonStreamScanner::skipValue(int depth) {
    const int c = next();
    switch (c) {
    case '{':
    case '[': {
        if (depth >= m_maxDepth) throw JsonDepthError{};
        m_in.advance();
        const char close = c == '{' ? '}' : ']';
        if (next() == close) {
            m_in.advance();
            return;
        }
        do {
            if (c == '{') {
                if (next() != '"') fail("expected a string key in an object");
                skipString(nullptr);
                expect(':');
            }
            skipValue(depth + 1);
        } while (commaOr(close));
        return;
    }
    case '"':
        skipString(nullptr);
        return;
    case 't':
        skipLiteral("true");
        return;
    case 'f':
        skipLiteral("false");
        return;
    case 'n':
        skipLiteral("null");
        return;
    default:
        if (c == '-' || (c >= '0' && c <= '9')) return skipNumber();
        fail(c == -1 ? "unexpected end of text, expected a value" : "expected a value");
    }
}

std::string JsonStreamScanner::readString() {
    std::string decoded;
    return std::string(readString(decoded));
}

std::string_view JsonStreamScanner::readString(std::string& decoded) {
    if (next() != '"') fail("expected a string");
    const std::string_view block = m_in.available();
    std::size_t n = 1;
    while (n < block.size() && isPlain(static_cast<unsigned char>(block[n]))) ++n;
    if (n < block.size() && block[n] == '"') {
        m_in.advance(n + 1);
        return block.substr(1, n - 1);
    }
    decoded.clear();
    skipString(&decoded);
    return decoded;
}

void JsonStreamScanner::skipLiteral(std::string_view word) {
    for (const char w : word) {
        if (m_in.peek() != static_cast<unsigned char>(w)) fail("expected a value (true, false or null?)");
        m_in.advance();
    }
}

std::size_t JsonStreamScanner::numberInBlock() {
    const std::string_view block = m_in.available();
    const std::size_t size = block.size();
    std::size_t k = 0;
    auto digits = [&] {
        const std::size_t from = k;
        while (k < size && block[k] >= '0' && block[k] <= '9') ++k;
        return k - from;
    };
    if (k < size && block[k] == '-') ++k;
    std::size_t integerDigits = 0;
    if (k < size && block[k] == '0') {
        ++k;
        integerDigits = 1;
    } else if ((integerDigits = digits()) == 0) {
        return 0;
    }
    if (k < size && block[k] == '.') {
        ++k;
        if (digits() == 0) return 0;
    }
    bool exponent = false;
    if (k < size && (block[k] == 'e' || block[k] == 'E')) {
        exponent = true;
        ++k;
        if (k < size && (block[k] == '+' || block[k] == '-')) ++k;
        if (digits() == 0) return 0;
    }
    if (k == size) return 0; // it may go on in the next block
    if ((exponent || integerDigits > 300) &&
        !std::isfinite(std::strtod(std::string(block.substr(0, k)).c_str(), nullptr)))
        return 0;
    return k;
}

std::string_view JsonStreamScanner::readNumberText() {
    // Most numbers lie whole in the block at hand; the byte-by-byte path below handles the
    // others and every error.
    if (const std::size_t length = numberInBlock(); length > 0) {
        const std::string_view text = m_in.available().substr(0, length);
        m_in.advance(length);
        return text;
    }
    // The grammar of RFC 8259; the digits are kept to test the value for overflow as nlohmann
    // does (a number a double cannot hold is an error).
    m_number.clear();
    auto take = [&] {
        m_number += char(m_in.peek());
        m_in.advance();
    };
    auto digits = [&] {
        std::size_t n = 0;
        for (int c = m_in.peek(); c >= '0' && c <= '9'; c = m_in.peek()) take(), ++n;
        return n;
    };
    if (m_in.peek() == '-') take();
    std::size_t integerDigits = 0;
    if (m_in.peek() == '0') {
        take();
        integerDigits = 1;
    } else {
        integerDigits = digits();
        if (integerDigits == 0) fail("a digit must follow '-'");
    }
    bool exponent = false;
    if (m_in.peek() == '.') {
        take();
        if (digits() == 0) fail("a digit must follow '.' in a number");
    }
    if (m_in.peek() == 'e' || m_in.peek() == 'E') {
        exponent = true;
        take();
        if (m_in.peek() == '+' || m_in.peek() == '-') take();
        if (digits() == 0) fail("a digit must follow the exponent of a number");
    }
    if (exponent || integerDigits > 300) {
        if (!std::isfinite(std::strtod(m_number.c_str(), nullptr))) fail("a number too large for a double");
    }
    return m_number;
}

int JsonStreamScanner::hex4() {
    int value = 0;
    for (int k = 0; k < 4; ++k) {
        const int digit = hexValue(m_in.peek());
        if (digit < 0) fail("a \\u escape needs four hex digits");
        m_in.advance();
        value = value * 16 + digit;
    }
    return value;
}

void JsonStreamScanner::skipEscape(std::string* out) {
    const int c = m_in.peek();
    m_in.advance();
    char decoded = 0;
    switch (c) {
    case '"':
        decoded = '"';
        break;
    case '\\':
        decoded = '\\';
        break;
    case '/':
        decoded = '/';
        break;
    case 'b':
        decoded = '\b';
        break;
    case 'f':
        decoded = '\f';
        break;
    case 'n':
        decoded = '\n';
        break;
    case 'r':
        decoded = '\r';
        break;
    case 't':
        decoded = '\t';
        break;
    case 'u': {
        std::uint32_t cp = std::uint32_t(hex4());
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            fail("a \\u escape of a low surrogate without a high one before it");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (m_in.peek() != '\\') fail("a \\u escape of a high surrogate must be followed by a low one");
            m_in.advance();
            if (m_in.peek() != 'u') fail("a \\u escape of a high surrogate must be followed by a low one");
            m_in.advance();
            const std::uint32_t low = std::uint32_t(hex4());
            if (low < 0xDC00 || low > 0xDFFF)
                fail("a \\u escape of a high surrogate must be followed by a low one");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        if (out) appendUtf8(*out, cp);
        return;
    }
    default:
        fail(c == -1 ? "unexpected end of text inside a string" : "an unknown escape in a string");
    }
    if (out) *out += decoded;
}

void JsonStreamScanner::skipUtf8(int lead, std::string* out) {
    // Well-formed UTF-8 (RFC 3629): the ranges of the second byte depend on the first.
    int continuation = 0, lo = 0x80, hi = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        continuation = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        continuation = 2;
        if (lead == 0xE0) lo = 0xA0;
        if (lead == 0xED) hi = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        continuation = 3;
        if (lead == 0xF0) lo = 0x90;
        if (lead == 0xF4) hi = 0x8F;
    } else {
        fail("invalid UTF-8 in a string");
    }
    if (out) *out += char(lead);
    m_in.advance();
    for (int k = 0; k < continuation; ++k) {
        const int c = m_in.peek();
        if (c < lo || c > hi) fail("invalid UTF-8 in a string");
        lo = 0x80, hi = 0xBF;
        if (out) *out += char(c);
        m_in.advance();
    }
}

void JsonStreamScanner::skipString(std::string* out) {
    m_in.advance(); // the opening quote
    for (;;) {
        // Runs of plain bytes in the block at hand, then one special byte at a time.
        const std::string_view block = m_in.available();
        std::size_t n = 0;
        while (n < block.size() && isPlain(static_cast<unsigned char>(block[n]))) ++n;
        if (out) out->append(block.data(), n);
        m_in.advance(n);
        const int c = m_in.peek();
        if (c == '"') {
            m_in.advance();
            return;
        }
        if (c == '\\') {
            m_in.advance();
            skipEscape(out);
        } else if (c >= 0x80) {
            skipUtf8(c, out);
        } else if (c < 0x20) {
            fail(c == -1 ? "unexpected end of text inside a string" : "a control character inside a string");
        }
        // else: the block ended inside a run of plain bytes; the next block goes on with it.
    }
}

// ---------------------------------------------------------------------------------------------
// FlatObject: reads text JsonStreamScanner accepted, so it checks nothing.

namespace {

void skipSpace(std::string_view& rest) {
    std::size_t n = 0;
    while (n < rest.size() && isSpace(static_cast<unsigned char>(rest[n]))) ++n;
    rest.remove_prefix(n);
}

/// The end of the string that starts at rest[0] (its quote), past the closing quote.
std::size_t stringEnd(std::string_view rest) {
    for (std::size_t k = 1;; ++k) {
        k = rest.find('"', k);
        // Escaped when an odd run of backslashes precedes it.
        std::size_t slashes = 0;
        while (rest[k - 1 - slashes] == '\\') ++slashes;
        if (slashes % 2 == 0) return k + 1;
    }
}

/// The length of the value at the start of `rest`.
std::size_t valueLength(std::string_view rest) {
    if (rest[0] == '"') return stringEnd(rest);
    if (rest[0] != '{' && rest[0] != '[') {
        std::size_t k = 0;
        while (k < rest.size() && rest[k] != ',' && rest[k] != '}' && rest[k] != ']' &&
               !isSpace(static_cast<unsigned char>(rest[k])))
            ++k;
        return k;
    }
    int depth = 0;
    std::size_t k = 0;
    do {
        const char c = rest[k];
        if (c == '"') {
            k += stringEnd(rest.substr(k));
            continue;
        }
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') --depth;
        ++k;
    } while (depth > 0);
    return k;
}

} // namespace

std::string_view FlatObject::readString(std::string_view& rest) {
    const std::size_t end = stringEnd(rest);
    const std::string_view body = rest.substr(1, end - 2);
    rest.remove_prefix(end);
    if (body.find('\\') == std::string_view::npos) return body;
    if (m_decodedUsed == m_decoded.size()) m_decoded.emplace_back();
    std::string& out = m_decoded[m_decodedUsed++];
    out.clear();
    for (std::size_t k = 0; k < body.size(); ++k) {
        if (body[k] != '\\') {
            out += body[k];
            continue;
        }
        const char c = body[++k];
        switch (c) {
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'n':
            out += '\n';
            break;
        case 'r':
            out += '\r';
            break;
        case 't':
            out += '\t';
            break;
        case 'u': {
            auto hex = [&](std::size_t at) {
                std::uint32_t v = 0;
                for (std::size_t d = 0; d < 4; ++d) v = v * 16 + std::uint32_t(hexValue(body[at + d]));
                return v;
            };
            std::uint32_t cp = hex(k + 1);
            k += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (hex(k + 3) - 0xDC00);
                k += 6;
            }
            appendUtf8(out, cp);
            break;
        }
        default:
            out += c;
            break; // " \ /
        }
    }
    return out;
}

namespace {

/// A number, typed as nlohmann types it: unsigned, then signed, then (on overflow, or with a
/// fraction or an exponent) a double.
FlatValue readNumber(std::string_view& rest) {
    FlatValue v;
    const char* first = rest.data();
    const char* last = first + rest.size();
    const char* end = nullptr;
    bool integral = false;
    if (*first != '-') {
        const auto r = std::from_chars(first, last, v.unsignedValue);
        end = r.ptr;
        integral = r.ec == std::errc() && (end == last || (*end != '.' && *end != 'e' && *end != 'E'));
        v.type = FlatValue::Type::Unsigned;
        v.number = double(v.unsignedValue);
    } else {
        const auto r = std::from_chars(first, last, v.integer);
        end = r.ptr;
        integral = r.ec == std::errc() && (end == last || (*end != '.' && *end != 'e' && *end != 'E'));
        v.type = FlatValue::Type::Integer;
        v.number = double(v.integer);
    }
    if (!integral) {
        v.type = FlatValue::Type::Float;
        const auto r = std::from_chars(first, last, v.number);
        end = r.ptr;
        if (r.ec != std::errc()) {
            // Out of range: as strtod, which nlohmann uses (underflow gives 0 or a subnormal;
            // overflow was refused by the scanner).
            std::size_t k = 0;
            while (first + k < last && std::strchr("+-.eE0123456789", first[k]) && first[k] != 0) ++k;
            end = first + k;
            v.number = std::strtod(std::string(first, k).c_str(), nullptr);
        }
    }
    v.raw = rest.substr(0, std::size_t(end - first));
    rest.remove_prefix(v.raw.size());
    return v;
}

} // namespace

FlatValue FlatObject::readValue(std::string_view& rest, int level) {
    skipSpace(rest);
    FlatValue v;
    const char c = rest[0];
    if (c == '"') {
        const std::string_view start = rest;
        v.type = FlatValue::Type::String;
        v.text = readString(rest);
        v.raw = start.substr(0, start.size() - rest.size());
        return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return readNumber(rest);
    if (c == '{' && level < 2) {
        // The root's members go to m_members[0], those of its member objects (read whole before
        // the next member) to m_members[1]: each object's members stay contiguous.
        std::vector<FlatMember>& members = m_members[std::size_t(level)];
        const std::string_view start = rest;
        v.type = FlatValue::Type::Object;
        v.level = std::uint8_t(level);
        v.first = std::uint32_t(members.size());
        rest.remove_prefix(1);
        skipSpace(rest);
        while (rest[0] != '}') {
            skipSpace(rest);
            FlatMember& member = members.emplace_back();
            const std::size_t index = members.size() - 1;
            member.key = readString(rest);
            skipSpace(rest);
            rest.remove_prefix(1); // ':'
            const FlatValue value = readValue(rest, level + 1);
            members[index].value = value; // the read may have grown `members`
            skipSpace(rest);
            if (rest[0] == ',') rest.remove_prefix(1);
        }
        rest.remove_prefix(1);
        v.count = std::uint32_t(members.size()) - v.first;
        v.raw = start.substr(0, start.size() - rest.size());
        return v;
    }
    const std::size_t length = valueLength(rest);
    v.raw = rest.substr(0, length);
    rest.remove_prefix(length);
    if (c == '{') {
        v.type = FlatValue::Type::Object; // deeper than the reader looks: its text only
    } else if (c == '[') {
        v.type = FlatValue::Type::Array;
    } else if (c == 't' || c == 'f') {
        v.type = FlatValue::Type::Boolean;
        v.boolean = c == 't';
    } else if (c == 'n') {
        v.type = FlatValue::Type::Null;
    }
    return v;
}

void FlatObject::read(std::string_view text) {
    m_members[0].clear();
    m_members[1].clear();
    m_decodedUsed = 0;
    m_root = readValue(text, 0);
}

const FlatValue* FlatObject::find(const FlatValue& object, std::string_view key) const {
    if (!object.isObject() || object.level > 1) return nullptr;
    const std::vector<FlatMember>& members = m_members[object.level];
    for (std::uint32_t k = object.first + object.count; k > object.first; --k)
        if (members[k - 1].key == key) return &members[k - 1].value;
    return nullptr;
}

} // namespace stagecraft
