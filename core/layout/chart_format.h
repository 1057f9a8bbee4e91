#pragma once
// The one table of chart file formats by extension, for every writer of a chart (stagecraft-cli's
// export, overlay, fidelity and search charts, the app's Export and its headless --export).

#include <cstdint>
#include <optional>
#include <string_view>

namespace stagecraft {

enum class ChartFormat : std::uint8_t {
    Svg,
    Pdf,
    Png,
    TikzDocument, ///< .tex: a standalone LaTeX document
    TikzPicture,  ///< .tikz: a tikzpicture to \input
};

/// The format a chart file's extension names (letter case ignored), or nullopt.
std::optional<ChartFormat> chartFormatOf(std::string_view path);

/// The extensions in words, for messages: ".svg, .pdf, .png, .tex (TikZ document), .tikz (TikZ picture)".
const char* chartFormatList();

} // namespace stagecraft
