#include "layout/text_metrics.h"

#include <array>

namespace stagecraft {

namespace {

/// Helvetica advance widths in 1/1000 em for ASCII 32..126 (the standard AFM values).
constexpr std::array<short, 95> kHelvetica = {
    278, 278, 355, 556, 556, 889, 667,  191, 333, 333, 389, 584, 278, 333, 278, 278, // space../
    556, 556, 556, 556, 556, 556, 556,  556, 556, 556,                               // 0..9
    278, 278, 584, 584, 584, 556, 1015,                                              // :..@
    667, 667, 722, 722, 667, 611, 778,  722, 278, 500, 667, 556, 833,                // A..M
    722, 778, 667, 778, 722, 667, 611,  722, 667, 944, 667, 667, 611,                // N..Z
    278, 278, 278, 469, 556, 333,                                                    // [..`
    556, 556, 500, 556, 556, 278, 556,  556, 222, 222, 500, 222, 833,                // a..m
    556, 556, 556, 556, 333, 500, 278,  556, 500, 722, 500, 500, 500,                // n..z
    334, 260, 334, 584};                                                             // {..~

} // namespace

double estimateTextWidth(std::string_view text, double size, bool bold) {
    double units = 0;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 32 && byte < 127)
            units += kHelvetica[byte - 32];
        else if ((byte & 0xC0) != 0x80)
            units += 556; // lead byte of a multi-byte code point (or a control)
    }
    // Fallback fonts are wider: DejaVu Sans (what Linux viewers use when Helvetica and Arial are
    // missing) is about 12 % wider, its bold up to 30 % ('breadth-first' in a panel title). Erring
    // wide keeps labels inside their bars and a title clear of its subtitle.
    return units * size / 1000.0 * (bold ? 1.3 : 1.12);
}

namespace {

/// The pieces a line may break between: the words, except that "a = b" stays one piece (a line
/// ending in "B+W =" with "2" on the next reads as a broken figure).
std::vector<std::string> breakablePieces(const std::string& text) {
    std::vector<std::string> pieces;
    bool joinNext = false;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find(' ', pos);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(pos, end - pos);
        if ((word == "=" || joinNext) && !pieces.empty()) {
            pieces.back() += ' ' + word;
            joinNext = word == "=";
        } else {
            pieces.push_back(word);
        }
        pos = end + 1;
    }
    return pieces;
}

} // namespace

std::vector<std::string> wrapText(const std::string& text, double size, double maxWidth) {
    std::vector<std::string> lines;
    std::string line;
    for (const std::string& piece : breakablePieces(text)) {
        std::string candidate = line;
        if (!candidate.empty()) candidate += ' ';
        candidate += piece;
        if (!line.empty() && estimateTextWidth(candidate, size) > maxWidth) {
            lines.push_back(line);
            line = piece;
        } else {
            line = candidate;
        }
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

} // namespace stagecraft
