#include "io/json_scan.h"

#include "error.h"
#include "utf8.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace stagecraft {

namespace {

constexpr int kMaxDepth = 64;

bool isBlank(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

} // namespace

JsonScanner::JsonScanner(std::string_view text, std::string source, std::string id)
    : m_begin(text.data()), m_pos(text.data()), m_end(text.data() + text.size()), m_source(std::move(source)),
      m_id(std::move(id)) {
    // A UTF-8 byte order mark is not JSON, but editors write it.
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") m_pos += 3;
}

void JsonScanner::fail(const std::string& message) const {
    int line = 1, column = 1;
    for (const char* p = m_begin; p < m_pos && p < m_end; ++p) {
        if (*p == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    throw ParseError(m_id, m_source, line, column, message);
}

void JsonScanner::skipBlanks() {
    while (m_pos < m_end && isBlank(*m_pos)) ++m_pos;
}

bool JsonScanner::atEnd() {
    skipBlanks();
    return m_pos == m_end;
}

char JsonScanner::peek() {
    skipBlanks();
    return m_pos < m_end ? *m_pos : '\0';
}

void JsonScanner::expect(char c, const char* what) {
    skipBlanks();
    if (m_pos >= m_end) fail(std::string("unexpected end of text, expected ") + what);
    if (*m_pos != c) fail(std::string("expected ") + what + ", found '" + std::string(1, *m_pos) + "'");
    ++m_pos;
}

void JsonScanner::beginObject() {
    expect('{', "'{'");
    if (++m_depth > kMaxDepth) fail("JSON nested deeper than 64 levels");
    m_first = true;
}

bool JsonScanner::nextKey(std::string_view& key) {
    skipBlanks();
    if (m_pos >= m_end) fail("unexpected end of text inside an object");
    if (*m_pos == '}') {
        ++m_pos;
        --m_depth;
        m_first = false;
        return false;
    }
    if (m_first) {
        m_first = false;
    } else {
        if (*m_pos != ',') fail("expected ',' or '}' in an object");
        ++m_pos;
        skipBlanks();
    }
    if (m_pos >= m_end || *m_pos != '"') fail("expected a string key in an object");
    key = readString();
    expect(':', "':' after an object key");
    return true;
}

void JsonScanner::beginArray() {
    expect('[', "'['");
    if (++m_depth > kMaxDepth) fail("JSON nested deeper than 64 levels");
    m_first = true;
}

bool JsonScanner::nextElement() {
    skipBlanks();
    if (m_pos >= m_end) fail("unexpected end of text inside an array");
    if (*m_pos == ']') {
        ++m_pos;
        --m_depth;
        m_first = false;
        return false;
    }
    if (m_first) {
        m_first = false;
        return true;
    }
    if (*m_pos != ',') fail("expected ',' or ']' in an array");
    ++m_pos;
    skipBlanks();
    if (m_pos < m_end && *m_pos == ']') fail("a trailing ',' before ']'");
    return true;
}

std::string_view JsonScanner::readString() {
    expect('"', "a string");
    const char* start = m_pos;
    // Fast path: no escapes.
    while (m_pos < m_end && *m_pos != '"' && *m_pos != '\\') {
        if (static_cast<unsigned char>(*m_pos) < 0x20) fail("a control character inside a string");
        ++m_pos;
    }
    if (m_pos >= m_end) fail("unexpected end of text inside a string");
    if (*m_pos == '"') return {start, std::size_t(m_pos++ - start)};
    m_scratch.assign(start, m_pos);
    while (true) {
        if (m_pos >= m_end) fail("unexpected end of text inside a string");
        const char c = *m_pos++;
        if (c == '"') break;
        if (static_cast<unsigned char>(c) < 0x20) fail("a control character inside a string");
        if (c != '\\') {
            m_scratch += c;
            continue;
        }
        if (m_pos >= m_end) fail("unexpected end of text inside a string");
        const char e = *m_pos++;
        switch (e) {
        case '"':
            m_scratch += '"';
            break;
        case '\\':
            m_scratch += '\\';
            break;
        case '/':
            m_scratch += '/';
            break;
        case 'b':
            m_scratch += '\b';
            break;
        case 'f':
            m_scratch += '\f';
            break;
        case 'n':
            m_scratch += '\n';
            break;
        case 'r':
            m_scratch += '\r';
            break;
        case 't':
            m_scratch += '\t';
            break;
        case 'u': {
            auto hex4 = [&]() -> std::uint32_t {
                if (m_end - m_pos < 4) fail("a \\u escape needs four hex digits");
                std::uint32_t v = 0;
                for (int i = 0; i < 4; ++i) {
                    const char h = *m_pos++;
                    v <<= 4;
                    if (h >= '0' && h <= '9')
                        v |= std::uint32_t(h - '0');
                    else if (h >= 'a' && h <= 'f')
                        v |= std::uint32_t(h - 'a' + 10);
                    else if (h >= 'A' && h <= 'F')
                        v |= std::uint32_t(h - 'A' + 10);
                    else
                        fail("a \\u escape needs four hex digits");
                }
                return v;
            };
            std::uint32_t cp = hex4();
            if (cp >= 0xD800 && cp <= 0xDBFF && m_end - m_pos >= 6 && m_pos[0] == '\\' && m_pos[1] == 'u') {
                m_pos += 2;
                const std::uint32_t low = hex4();
                if (low >= 0xDC00 && low <= 0xDFFF)
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                else
                    cp = 0xFFFD;
            } else if (cp >= 0xD800 && cp <= 0xDFFF) {
                cp = 0xFFFD;
            }
            appendUtf8(m_scratch, cp);
            break;
        }
        default:
            fail(std::string("an unknown escape '\\") + e + "' in a string");
        }
    }
    return m_scratch;
}

double JsonScanner::readNumber() {
    skipBlanks();
    if (m_pos < m_end && *m_pos == '"') {
        const std::string_view text = readString();
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
            fail("expected a number, found the string \"" + std::string(text.substr(0, 40)) + "\"");
        return value;
    }
    const char* start = m_pos;
    skipNumber();
    double value = 0;
    const auto [end, ec] = std::from_chars(start, m_pos, value);
    if (ec != std::errc() || end != m_pos || !std::isfinite(value)) {
        m_pos = start;
        fail("a number out of range");
    }
    return value;
}

double JsonScanner::readNumberOr(double fallback) {
    const char c = peek();
    if (c == '-' || (c >= '0' && c <= '9')) return readNumber();
    if (c == '"') {
        const std::string_view text = readString();
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size() && std::isfinite(value)) return value;
        return fallback;
    }
    skipValue();
    return fallback;
}

void JsonScanner::skipNumber() {
    const char* start = m_pos;
    if (m_pos < m_end && *m_pos == '-') ++m_pos;
    if (m_pos >= m_end) fail("expected a value");
    if (*m_pos == '0') {
        ++m_pos;
    } else if (*m_pos >= '1' && *m_pos <= '9') {
        while (m_pos < m_end && *m_pos >= '0' && *m_pos <= '9') ++m_pos;
    } else {
        m_pos = start;
        fail(std::string("expected a value, found '") + (m_pos < m_end ? std::string(1, *m_pos) : "") + "'");
    }
    if (m_pos < m_end && *m_pos == '.') {
        ++m_pos;
        if (m_pos >= m_end || *m_pos < '0' || *m_pos > '9') fail("a digit must follow '.' in a number");
        while (m_pos < m_end && *m_pos >= '0' && *m_pos <= '9') ++m_pos;
    }
    if (m_pos < m_end && (*m_pos == 'e' || *m_pos == 'E')) {
        ++m_pos;
        if (m_pos < m_end && (*m_pos == '+' || *m_pos == '-')) ++m_pos;
        if (m_pos >= m_end || *m_pos < '0' || *m_pos > '9') fail("a digit must follow the exponent");
        while (m_pos < m_end && *m_pos >= '0' && *m_pos <= '9') ++m_pos;
    }
}

void JsonScanner::skipString() {
    expect('"', "a string");
    while (m_pos < m_end) {
        const char c = *m_pos++;
        if (c == '"') return;
        if (c == '\\') {
            if (m_pos >= m_end) break;
            const char e = *m_pos++;
            if (e == 'u') {
                for (int i = 0; i < 4; ++i, ++m_pos)
                    if (m_pos >= m_end || !std::isxdigit(static_cast<unsigned char>(*m_pos)))
                        fail("a \\u escape needs four hex digits");
            } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
                fail(std::string("an unknown escape '\\") + e + "' in a string");
            }
        } else if (static_cast<unsigned char>(c) < 0x20) {
            --m_pos;
            fail("a control character inside a string");
        }
    }
    fail("unexpected end of text inside a string");
}

void JsonScanner::skipLiteral() {
    auto take = [&](std::string_view word) {
        if (std::string_view(m_pos, std::size_t(m_end - m_pos)).substr(0, word.size()) != word)
            fail("expected a value");
        m_pos += word.size();
    };
    switch (*m_pos) {
    case 't':
        take("true");
        break;
    case 'f':
        take("false");
        break;
    case 'n':
        take("null");
        break;
    default:
        fail(std::string("expected a value, found '") + std::string(1, *m_pos) + "'");
    }
}

void JsonScanner::skipValue() {
    skipBlanks();
    if (m_pos >= m_end) fail("unexpected end of text, expected a value");
    switch (*m_pos) {
    case '"':
        skipString();
        return;
    case '{': {
        beginObject();
        std::string_view key;
        while (nextKey(key)) skipValue();
        return;
    }
    case '[':
        beginArray();
        while (nextElement()) skipValue();
        return;
    case 't':
    case 'f':
    case 'n':
        skipLiteral();
        return;
    default:
        skipNumber();
        return;
    }
}

} // namespace stagecraft
