#pragma once
// Width of a text line estimated from Helvetica's advance widths, so the layout can decide
// whether a label fits a bar and place text without a font engine (core has none). Renderers
// draw with their own font; the estimate is Helvetica's widths (shared by Arial and Liberation
// Sans) widened to cover DejaVu Sans, the usual fallback, so it errs on the wide side.

#include <string_view>

namespace stagecraft {

/// Width in pt of `text` (UTF-8) at `size` pt. Code points outside ASCII count as a digit.
double estimateTextWidth(std::string_view text, double size, bool bold = false);

} // namespace stagecraft
