#include "layout/svg_writer.h"

#include "layout/chart_common.h"
#include "utf8.h"

#include <cstdio>

namespace stagecraft {

namespace {

std::string num(double v) {
    return formatNumber(v, 2);
}

std::string hex(Color c) {
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", c.r, c.g, c.b);
    return buffer;
}

/// fill="..." (+ fill-opacity) or fill="none".
std::string paint(const char* attribute, Color c) {
    if (c.a == 0) return std::string(" ") + attribute + "=\"none\"";
    std::string out = std::string(" ") + attribute + "=\"" + hex(c) + "\"";
    if (c.a < 255) out += std::string(" ") + attribute + "-opacity=\"" + formatNumber(c.a / 255.0, 3) + "\"";
    return out;
}

const char* roleClass(RectRole role) {
    switch (role) {
    case RectRole::Background:
        return "background";
    case RectRole::Panel:
        return "panel";
    case RectRole::Idle:
        return "idle";
    case RectRole::Op:
        return "op";
    case RectRole::Comm:
        return "comm";
    case RectRole::Legend:
        return "legend";
    }
    return "shape";
}

/// Class names may not contain blanks; kinds never do, but a defensive pass keeps the markup valid.
std::string classToken(std::string_view kind) {
    std::string token;
    for (char c : kind) token += (c == ' ' || c == '"' || c == '<' || c == '&') ? '-' : c;
    return token;
}

} // namespace

std::string xmlEscape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size();) {
        const char32_t cp = nextCodePoint(text, pos);
        if (cp >= 0x80) {
            appendUtf8(out, cp); // re-encoded: invalid bytes became U+FFFD
            continue;
        }
        const char c = char(cp);
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') break;
            out += c;
        }
    }
    return out;
}

std::string sceneToSvg(const Scene& scene) {
    std::string out;
    out.reserve(256 + scene.rects.size() * 200 + scene.texts.size() * 120 + scene.lines.size() * 100);
    out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + num(scene.width) +
           "pt\" height=\"" + num(scene.height) + "pt\" viewBox=\"0 0 " + num(scene.width) + " " +
           num(scene.height) + "\">\n";
    const std::string family = scene.fontFamily.empty() ? "sans-serif" : scene.fontFamily;
    out += "<g font-family=\"" + xmlEscape(family) + "\">\n";

    for (const SceneRect& r : scene.rects) {
        out += "<rect class=\"" + std::string(roleClass(r.role));
        if (!r.kind.empty()) out += " " + classToken(r.kind);
        out += "\" x=\"" + num(r.x) + "\" y=\"" + num(r.y) + "\" width=\"" + num(r.w) + "\" height=\"" +
               num(r.h) + "\"";
        out += paint("fill", r.fill);
        if (r.stroke.a > 0 && r.strokeWidth > 0)
            out += paint("stroke", r.stroke) + " stroke-width=\"" + num(r.strokeWidth) + "\"";
        if (r.event >= 0) out += " data-event=\"" + std::to_string(r.event) + "\"";
        if (r.panel >= 0 && r.event >= 0) out += " data-panel=\"" + std::to_string(r.panel) + "\"";
        if (r.tooltip.empty()) {
            out += "/>\n";
        } else {
            out += "><title>" + xmlEscape(r.tooltip) + "</title></rect>\n";
        }
    }
    for (const SceneLine& l : scene.lines) {
        out += "<line x1=\"" + num(l.x1) + "\" y1=\"" + num(l.y1) + "\" x2=\"" + num(l.x2) + "\" y2=\"" +
               num(l.y2) + "\"" + paint("stroke", l.color) + " stroke-width=\"" + num(l.width) + "\"";
        if (l.dashed) out += " stroke-dasharray=\"" + num(l.width * 4) + " " + num(l.width * 3) + "\"";
        out += "/>\n";
    }
    for (const SceneText& t : scene.texts) {
        out += "<text x=\"" + num(t.x) + "\" y=\"" + num(t.y) + "\" font-size=\"" + num(t.size) + "\"" +
               paint("fill", t.color);
        if (t.anchor == TextAnchor::Middle)
            out += " text-anchor=\"middle\"";
        else if (t.anchor == TextAnchor::End)
            out += " text-anchor=\"end\"";
        if (t.bold) out += " font-weight=\"bold\"";
        out += ">" + xmlEscape(t.text) + "</text>\n";
    }
    out += "</g>\n</svg>\n";
    return out;
}

} // namespace stagecraft
