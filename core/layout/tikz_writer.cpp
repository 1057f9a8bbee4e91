#include "layout/tikz_writer.h"

#include "layout/chart_common.h"
#include "utf8.h"

#include <cstdint>
#include <map>

namespace stagecraft {

namespace {

std::string num(double v) {
    return formatNumber(v, 2);
}

std::uint32_t packRgb(Color c) {
    return std::uint32_t(c.r) << 16 | std::uint32_t(c.g) << 8 | c.b;
}

const char* symbolFor(char32_t cp) {
    switch (cp) {
    case 0x00B5: // micro sign
    case 0x03BC: // Greek mu
        return "\\ensuremath{\\mu}";
    case 0x00B7:
        return "\\textperiodcentered{}";
    case 0x2013:
        return "--";
    case 0x2014:
        return "---";
    case 0x2192:
        return "\\ensuremath{\\rightarrow}";
    case 0x2032:
        return "\\ensuremath{'}";
    case 0x00D7:
        return "\\ensuremath{\\times}";
    case 0x2264:
        return "\\ensuremath{\\leq}";
    case 0x2265:
        return "\\ensuremath{\\geq}";
    case 0x2212:
        return "\\ensuremath{-}";
    case 0x2026:
        return "\\ldots{}";
    case 0x00B0:
        return "\\ensuremath{^\\circ}";
    default:
        return "?";
    }
}

/// Colour names, assigned in order of first use.
class ColorTable {
  public:
    const std::string& name(Color c) {
        auto [it, inserted] = m_names.try_emplace(packRgb(c));
        if (inserted) {
            it->second = "sc" + std::to_string(m_order.size());
            m_order.push_back(c);
        }
        return it->second;
    }
    std::string definitions() const {
        std::string out;
        for (std::size_t i = 0; i < m_order.size(); ++i) {
            const Color c = m_order[i];
            out += "\\definecolor{sc" + std::to_string(i) + "}{RGB}{" + std::to_string(c.r) + "," +
                   std::to_string(c.g) + "," + std::to_string(c.b) + "}\n";
        }
        return out;
    }

  private:
    std::map<std::uint32_t, std::string> m_names;
    std::vector<Color> m_order;
};

std::string opacity(const char* key, Color c) {
    return c.a < 255 ? std::string(",") + key + "=" + formatNumber(c.a / 255.0, 3) : std::string();
}

} // namespace

std::string latexEscape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 8);
    for (std::size_t pos = 0; pos < text.size();) {
        const char32_t cp = nextCodePoint(text, pos);
        if (cp >= 0x80) {
            out += symbolFor(cp);
            continue;
        }
        const char c = char(cp);
        switch (c) {
        case '_':
        case '%':
        case '&':
        case '#':
        case '$':
        case '{':
        case '}':
            out += '\\';
            out += c;
            break;
        case '~':
            out += "\\textasciitilde{}";
            break;
        case '^':
            out += "\\textasciicircum{}";
            break;
        case '\\':
            out += "\\textbackslash{}";
            break;
        case '<':
            out += "\\textless{}";
            break;
        case '>':
            out += "\\textgreater{}";
            break;
        case '|':
            out += "\\textbar{}";
            break;
        case '-':
            // "--" would become an en dash.
            out += (pos < text.size() && text[pos] == '-') ? "-{}" : "-";
            break;
        case '\n':
        case '\r':
        case '\t':
            out += ' ';
            break;
        default:
            if (cp >= 0x20 && cp < 0x7F) out += c;
        }
    }
    return out;
}

std::string sceneToTikz(const Scene& scene, bool standalone) {
    ColorTable colors;
    const double h = scene.height;
    auto px = [](double x) { return num(x); };
    auto py = [h](double y) { return num(h - y); };

    std::string body;
    body.reserve(scene.rects.size() * 90 + scene.texts.size() * 120 + scene.lines.size() * 80);
    body += "\\path[use as bounding box] (0,0) rectangle (" + px(scene.width) + "," + num(h) + ");\n";
    for (const SceneRect& r : scene.rects) {
        const bool fill = r.fill.a > 0;
        const bool stroke = r.stroke.a > 0 && r.strokeWidth > 0;
        if (!fill && !stroke) continue;
        std::string style;
        if (fill) style += "fill=" + colors.name(r.fill) + opacity("fill opacity", r.fill);
        if (stroke)
            style += std::string(fill ? "," : "") + "draw=" + colors.name(r.stroke) +
                     opacity("draw opacity", r.stroke) + ",line width=" + num(r.strokeWidth) + "pt";
        // \filldraw without a fill would fill with the current colour (black): an outline alone
        // (a measured op, an F&B slot's frame) is a \draw.
        const char* command = fill && stroke ? "\\filldraw" : fill ? "\\fill" : "\\draw";
        body += std::string(command) + "[" + style + "] (" + px(r.x) + "," + py(r.y + r.h) + ") rectangle (" +
                px(r.x + r.w) + "," + py(r.y) + ");";
        if (r.event >= 0) body += " % " + latexEscape(r.kind) + " event " + std::to_string(r.event);
        body += "\n";
    }
    for (const SceneLine& l : scene.lines) {
        if (l.color.a == 0) continue;
        body += "\\draw[" + colors.name(l.color) + opacity("draw opacity", l.color) +
                ",line width=" + num(l.width) + "pt" + (l.dashed ? ",dashed" : "") + "] (" + px(l.x1) + "," +
                py(l.y1) + ") -- (" + px(l.x2) + "," + py(l.y2) + ");\n";
    }
    for (const SceneText& t : scene.texts) {
        const char* anchor = t.anchor == TextAnchor::Start    ? "base west"
                             : t.anchor == TextAnchor::Middle ? "base"
                                                              : "base east";
        body += "\\node[anchor=" + std::string(anchor) + ",inner sep=0pt,text=" + colors.name(t.color) +
                opacity("text opacity", t.color) + ",font=\\sffamily\\fontsize{" + num(t.size) + "}{" +
                num(t.size * 1.2) + "}\\selectfont" + (t.bold ? "\\bfseries" : "") + "] at (" + px(t.x) +
                "," + py(t.y) + ") {" + latexEscape(t.text) + "};\n";
    }

    std::string out;
    // A complete document built from LaTeX's base classes only (article + geometry), so that it
    // compiles on a minimal TeX installation: the page is the chart's size plus a 2 pt margin.
    if (standalone)
        out +=
            "\\documentclass{article}\n\\usepackage{tikz}\n\\usepackage[paperwidth=" + num(scene.width + 4) +
            "pt,paperheight=" + num(h + 4) +
            "pt,margin=2pt]{geometry}\n\\pagestyle{empty}\n"
            "\\begin{document}\n\\noindent\n";
    out += "% Stagecraft chart: " + num(scene.width) + " x " + num(h) + " pt\n";
    out += "\\begin{tikzpicture}[x=1pt,y=1pt,font=\\sffamily]\n";
    out += colors.definitions();
    out += body;
    out += "\\end{tikzpicture}\n";
    if (standalone) out += "\\end{document}\n";
    return out;
}

} // namespace stagecraft
