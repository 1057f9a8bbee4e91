#include "text/quantity_text.h"

#include <cstdio>

namespace stagecraft {

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

} // namespace stagecraft
