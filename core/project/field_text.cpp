#include "project/field_text.h"

#include <charconv>
#include <cmath>

namespace stagecraft::detail {

std::string formatNumber(double value) {
    if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
    char buffer[64];
    const bool integral = value == std::floor(value) && std::fabs(value) < 1e15;
    const auto result = integral
                            ? std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed)
                            : std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string quoted(std::string_view text) {
    constexpr std::size_t kMaxBytes = 60;
    std::size_t cut = text.size();
    if (cut > kMaxBytes) {
        cut = kMaxBytes;
        // Back up to the start of a UTF-8 sequence so the message stays valid text.
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    }
    static const char* hex = "0123456789abcdef";
    // Bytes that are not UTF-8 are shown as \xNN so that the message itself stays valid text.
    const bool utf8 = isValidUtf8(text.substr(0, cut));
    std::string out = "\"";
    for (std::size_t i = 0; i < cut; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (!utf8 && c >= 0x80) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20) {
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += char(c);
        }
    }
    if (cut < text.size()) out += "...";
    return out + "\"";
}

bool isValidUtf8(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        int extra = 0;
        unsigned minimum = 0;
        unsigned code = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            extra = 1, minimum = 0x80, code = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2, minimum = 0x800, code = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3, minimum = 0x10000, code = c & 0x07;
        } else {
            return false;
        }
        if (i + std::size_t(extra) >= text.size()) return false; // truncated sequence
        for (int k = 1; k <= extra; ++k) {
            const auto next = static_cast<unsigned char>(text[i + std::size_t(k)]);
            if ((next & 0xC0) != 0x80) return false;
            code = (code << 6) | (next & 0x3F);
        }
        // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
        if (code < minimum || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return false;
        i += std::size_t(extra) + 1;
    }
    return true;
}

} // namespace stagecraft::detail
