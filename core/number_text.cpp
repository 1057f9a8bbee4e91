#include "number_text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace stagecraft {

std::string fixedText(double value, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string shareText(std::size_t n, std::size_t of) {
    return fixedText(of == 0 ? 0.0 : 100.0 * double(n) / double(of), 1) + " %";
}

std::string formatNumber(double value, int decimals) {
    if (!std::isfinite(value)) return "?";
    decimals = std::clamp(decimals, 0, 9);
    std::array<char, 64> buffer{};
    auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::fixed,
                                decimals);
    if (result.ec != std::errc()) return "?";
    std::string text(buffer.data(), result.ptr);
    if (text.find('.') != std::string::npos) {
        while (text.back() == '0') text.pop_back();
        if (text.back() == '.') text.pop_back();
    }
    if (text == "-0") text = "0";
    return text;
}

std::string formatSignificant(double value, int digits) {
    if (!std::isfinite(value) || value == 0) return formatNumber(value, 0);
    const int integerDigits = int(std::floor(std::log10(std::abs(value)))) + 1;
    return formatNumber(value, std::clamp(digits - integerDigits, 0, 3));
}

namespace {

/// |value| as formatSignificant shows it (rounded to its digits), 0 when not finite.
double shownMagnitude(double value, int digits) {
    const double a = std::abs(value);
    if (!std::isfinite(a) || a == 0) return 0;
    const int integerDigits = int(std::floor(std::log10(a))) + 1;
    const double scale = std::pow(10.0, std::clamp(digits - integerDigits, 0, 3));
    return std::round(a * scale) / scale;
}

} // namespace

std::string durationText(double us) {
    // The unit is chosen on the rounded value, so 999.96 µs reads "1 ms", not "1000 µs".
    const double shown = shownMagnitude(us, 4);
    if (shown >= 1e6) return formatSignificant(us / 1e6) + " s";
    if (shown >= 1e3) return formatSignificant(us / 1e3) + " ms";
    return formatSignificant(us) + " \u00b5s";
}

std::string millisecondsText(double us) {
    return formatSignificant(us / 1e3);
}

std::string unitsText(double units) {
    return formatSignificant(units) + " units";
}

std::string groupedInteger(std::size_t value) {
    std::string digits = std::to_string(value);
    std::string out;
    out.reserve(digits.size() + digits.size() / 3);
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string gibText(double bytes) {
    char text[48];
    std::snprintf(text, sizeof text, "%.2f GiB", bytes / double(1ull << 30));
    return text;
}

std::string bytesText(double bytes) {
    const double shown = shownMagnitude(bytes, 4);
    if (shown >= double(1ull << 30)) return formatSignificant(bytes / double(1ull << 30)) + " GiB";
    if (shown >= double(1ull << 20)) return formatSignificant(bytes / double(1ull << 20)) + " MiB";
    if (shown >= 1024.0) return formatSignificant(bytes / 1024.0) + " KiB";
    return formatNumber(bytes, 0) + " B";
}

std::string durationText(double t, bool unitless) {
    return unitless ? formatSignificant(t) : durationText(t);
}

} // namespace stagecraft
