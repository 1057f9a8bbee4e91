#pragma once
// Width of a text line estimated from Helvetica's advance widths, so the layout can decide
// whether a label fits a bar and place text without a font engine (core has none). Renderers
// draw with their own font; the estimate is Helvetica's widths (shared by Arial and Liberation
// Sans) widened to cover DejaVu Sans, the usual fallback, so it errs on the wide side.

#include <string>
#include <string_view>
#include <vector>

namespace stagecraft {

/// Width in pt of `text` (UTF-8) at `size` pt. Code points outside ASCII count as a digit.
double estimateTextWidth(std::string_view text, double size, bool bold = false);

/// Greedy line breaking at spaces so that each line fits `maxWidth` at `size` (a single word
/// longer than that gets a line of its own); "a = b" is never broken.
std::vector<std::string> wrapText(const std::string& text, double size, double maxWidth);

} // namespace stagecraft
