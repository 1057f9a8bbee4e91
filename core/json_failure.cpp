#include "json_failure.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <fstream>

namespace stagecraft {

namespace {

/// Accepts every event and remembers where the parser reported a failure.
struct FailureLocator : nlohmann::json_sax<nlohmann::json> {
    std::size_t position = 0;
    bool failed = false;
    std::string reason;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t where, const std::string&, const nlohmann::detail::exception& e) override {
        position = where;
        failed = true;
        reason = jsonFailureReason(e);
        return false;
    }
};

} // namespace

TextPosition textPosition(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    const std::string_view before = text.substr(0, offset);
    const std::size_t lines = 1 + std::size_t(std::count(before.begin(), before.end(), '\n'));
    const std::size_t lastNewline = before.rfind('\n');
    const std::size_t column = offset - (lastNewline == std::string_view::npos ? 0 : lastNewline + 1) + 1;
    return {int(std::min<std::size_t>(lines, INT_MAX)), int(std::min<std::size_t>(column, INT_MAX))};
}

TextPosition jsonFailurePosition(std::string_view text) {
    return findJsonFailure(text).at;
}

JsonFailure findJsonFailure(std::string_view text) {
    FailureLocator locator;
    nlohmann::json::sax_parse(text.begin(), text.end(), &locator);
    if (!locator.failed) return {};
    return {true, textPosition(text, locator.position == 0 ? 0 : locator.position - 1), locator.reason};
}

JsonFailure findJsonFailure(const std::filesystem::path& path) {
    FailureLocator locator;
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    nlohmann::json::sax_parse(in, &locator);
    if (!locator.failed) return {};
    return {true, textPosition(path, locator.position == 0 ? 0 : locator.position - 1), locator.reason};
}

TextPosition textPosition(const std::filesystem::path& path, std::uint64_t offset) {
    std::ifstream in(path, std::ios::binary);
    std::uint64_t read = 0, lines = 1, lineStart = 0;
    char block[1 << 16];
    while (read < offset && in) {
        in.read(block, std::streamsize(std::min<std::uint64_t>(sizeof block, offset - read)));
        const auto n = std::uint64_t(in.gcount());
        for (std::uint64_t k = 0; k < n; ++k)
            if (block[k] == '\n') ++lines, lineStart = read + k + 1;
        read += n;
        if (n == 0) break;
    }
    const std::uint64_t column = std::min(offset, read) - lineStart + 1;
    return {int(std::min<std::uint64_t>(lines, INT_MAX)), int(std::min<std::uint64_t>(column, INT_MAX))};
}

std::string jsonFailureReason(const nlohmann::json::exception& failure) {
    std::string reason = failure.what();
    if (const std::size_t column = reason.find(", column "); column != std::string::npos) {
        if (const std::size_t colon = reason.find(": ", column); colon != std::string::npos)
            reason = reason.substr(colon + 2);
    } else if (const std::size_t bracket = reason.find("] "); bracket != std::string::npos) {
        reason = reason.substr(bracket + 2);
    }
    std::string out;
    for (const char c : reason) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f) {
            out += c;
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", byte);
            out += hex;
        }
    }
    return out;
}

} // namespace stagecraft
