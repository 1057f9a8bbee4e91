#include "io/json_scan.h"

#include "error.h"
#include "json_failure.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace stagecraft {

namespace {

constexpr int kMaxDepth = 64;

/// The value of number text the grammar accepted (so it does not overflow); one too small for a
/// double is 0 or the nearest subnormal, as nlohmann reads it.
double numberValue(std::string_view text) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size()) return value;
    return std::strtod(std::string(text).c_str(), nullptr);
}

/// The value of a string holding a number ("123", Kineto's ids), or false.
bool numericString(std::string_view text, double& value) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size() && std::isfinite(value);
}

std::string describe(int c) {
    if (c < 0) return "the end of the text";
    if (c >= 0x20 && c < 0x7f) return "'" + std::string(1, char(c)) + "'";
    static const char* const hex = "0123456789ABCDEF";
    return std::string("byte \\x") + hex[(c >> 4) & 0xF] + hex[c & 0xF];
}

} // namespace

template <typename Step>
auto JsonScanner::checked(Step&& step) {
    try {
        return step();
    } catch (const JsonSyntaxError& e) {
        failAt(e.offset, e.reason);
    } catch (const JsonDepthError&) {
        failAt(offset(), "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
    }
}

JsonScanner::JsonScanner(std::string_view text, std::string source, std::string id)
    : m_bytes(text), m_json(m_bytes, kMaxDepth), m_text(text), m_source(std::move(source)),
      m_id(std::move(id)) {
    // A UTF-8 byte order mark is not JSON, but editors write it.
    checked([&] { m_json.skipByteOrderMark(); });
}

JsonScanner::JsonScanner(std::string_view text, std::string source, std::string id, std::size_t blockBytes)
    : m_bytes(text, blockBytes), m_json(m_bytes, kMaxDepth), m_text(text), m_source(std::move(source)),
      m_id(std::move(id)) {
    checked([&] { m_json.skipByteOrderMark(); });
}

JsonScanner::JsonScanner(const std::filesystem::path& path, std::string id, std::size_t blockBytes)
    : m_bytes(path, blockBytes), m_json(m_bytes, kMaxDepth), m_source(path.string()), m_id(std::move(id)) {
    checked([&] { m_json.skipByteOrderMark(); });
}

void JsonScanner::failAt(std::uint64_t at, const std::string& message) const {
    // Only on the error path: a file is read once more up to the byte to count its lines.
    const TextPosition p = m_bytes.fromFile() ? textPosition(m_bytes.path(), at) : textPosition(m_text, at);
    throw ParseError(m_id, m_source, p.line, p.column, message);
}

void JsonScanner::fail(const std::string& message) const {
    failAt(offset(), message);
}

int JsonScanner::nextByte() {
    return checked([&] { return m_json.next(); });
}

bool JsonScanner::atEnd() {
    return nextByte() < 0;
}

char JsonScanner::peek() {
    const int c = nextByte();
    return c < 0 ? '\0' : char(c);
}

void JsonScanner::open(char bracket, const char* what) {
    const int c = nextByte();
    if (c != static_cast<unsigned char>(bracket))
        fail(std::string("expected ") + what + ", found " + describe(c));
    if (m_depth >= kMaxDepth) fail("JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
    m_bytes.advance();
    ++m_depth;
    m_first = true;
}

void JsonScanner::beginObject() {
    open('{', "an object");
}

void JsonScanner::beginArray() {
    open('[', "an array");
}

bool JsonScanner::nextKey(std::string_view& key) {
    int c = nextByte();
    if (c < 0) fail("unexpected end of text inside an object");
    if (c == '}') {
        m_bytes.advance();
        --m_depth;
        m_first = false;
        return false;
    }
    if (m_first) {
        m_first = false;
    } else {
        if (c != ',') fail("expected ',' or '}' in an object, found " + describe(c));
        m_bytes.advance();
        c = nextByte();
    }
    if (c != '"') fail("expected a string key in an object, found " + describe(c));
    // The key is copied: the reader compares it after peeking at the value, which may move the
    // block it lies in.
    checked([&] {
        const std::string_view text = m_json.readString(m_decoded);
        m_key.assign(text.data(), text.size());
    });
    key = m_key;
    if (nextByte() != ':') fail("expected ':' after the key \"" + m_key.substr(0, 40) + "\"");
    m_bytes.advance();
    return true;
}

bool JsonScanner::nextElement() {
    const int c = nextByte();
    if (c < 0) fail("unexpected end of text inside an array");
    if (c == ']') {
        m_bytes.advance();
        --m_depth;
        m_first = false;
        return false;
    }
    if (m_first) {
        m_first = false;
        return true;
    }
    if (c != ',') fail("expected ',' or ']' in an array, found " + describe(c));
    m_bytes.advance();
    if (nextByte() == ']') fail("a trailing ',' before ']'");
    return true;
}

std::string_view JsonScanner::readString() {
    const int c = nextByte();
    if (c != '"') fail("expected a string, found " + describe(c));
    return checked([&] { return m_json.readString(m_decoded); });
}

double JsonScanner::readNumber() {
    const int c = nextByte();
    if (c == '"') {
        const std::string_view text = readString();
        double value = 0;
        if (!numericString(text, value))
            fail("expected a number, found the string \"" + std::string(text.substr(0, 40)) + "\"");
        return value;
    }
    if (c != '-' && !(c >= '0' && c <= '9')) fail("expected a number, found " + describe(c));
    return checked([&] { return numberValue(m_json.readNumberText()); });
}

double JsonScanner::readNumberOr(double fallback) {
    const int c = nextByte();
    if (c == '-' || (c >= '0' && c <= '9')) return readNumber();
    if (c == '"') {
        double value = 0;
        return numericString(readString(), value) ? value : fallback;
    }
    skipValue();
    return fallback;
}

void JsonScanner::skipValue() {
    checked([&] { m_json.skipValue(m_depth); });
}

} // namespace stagecraft
