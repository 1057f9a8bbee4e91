#include "layout/chart_format.h"

#include <array>
#include <cctype>
#include <utility>

namespace stagecraft {

std::optional<ChartFormat> chartFormatOf(std::string_view path) {
    static constexpr std::array<std::pair<std::string_view, ChartFormat>, 5> kExtensions{{
        {".svg", ChartFormat::Svg},
        {".pdf", ChartFormat::Pdf},
        {".png", ChartFormat::Png},
        {".tex", ChartFormat::TikzDocument},
        {".tikz", ChartFormat::TikzPicture},
    }};
    for (const auto& [extension, format] : kExtensions) {
        if (path.size() < extension.size()) continue;
        const std::string_view tail = path.substr(path.size() - extension.size());
        bool same = true;
        for (std::size_t i = 0; i < tail.size() && same; ++i)
            same = std::tolower(static_cast<unsigned char>(tail[i])) == extension[i];
        if (same) return format;
    }
    return std::nullopt;
}

const char* chartFormatList() {
    return ".svg, .pdf, .png, .tex (TikZ document), .tikz (TikZ picture)";
}

} // namespace stagecraft
