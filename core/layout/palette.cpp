#include "layout/palette.h"

#include "error.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace stagecraft {

namespace {

constexpr Color rgb(unsigned hex, std::uint8_t alpha = 255) {
    return {std::uint8_t(hex >> 16), std::uint8_t(hex >> 8), std::uint8_t(hex), alpha};
}

constexpr std::string_view kFonts = "Helvetica, Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif";

// Colour sets: paper and slides use Okabe & Ito's palette (safe for the common colour-vision
// deficiencies), colorblind uses Paul Tol's "bright" set (safe for all three and distinct in
// greyscale print too), greyscale prints on black-and-white printers.
constexpr Palette kOkabeIto{
    "paper",
    "Okabe-Ito colours, 7 pt text: figures in papers",
    // R takes the set's last colours: yellow, and for the second pipe a darker olive.
    {{{rgb(0x0072B2), rgb(0xE69F00), rgb(0x009E73), rgb(0xF0E442)},
      {rgb(0xCC79A7), rgb(0xD55E00), rgb(0x56B4E9), rgb(0x999933)}}},
    rgb(0x333333),
    rgb(0x999999),
    rgb(0x0072B2, 140),
    rgb(0xE69F00, 170),
    rgb(0xEEEEEE),
    rgb(0xFFFFFF),
    rgb(0x1A1A1A),
    rgb(0x666666),
    rgb(0x1A1A1A),
    rgb(0xFFFFFF),
    rgb(0x4D4D4D),
    rgb(0xFFFFFF),
    0.5,
    0.55,
    7.0,
    6.5,
    8.0,
    12.0,
    2.0,
    4.0,
    10.0,
    4.0,
    kFonts,
};

constexpr Palette makeSlides() {
    Palette p = kOkabeIto;
    p.name = "slides";
    p.summary = "Okabe-Ito colours, large text and rows: slides and posters";
    p.opStrokeWidth = 1.0;
    p.fontSize = 12;
    p.labelSize = 11;
    p.titleSize = 14;
    p.rowHeight = 22;
    p.rowGap = 3;
    p.commHeight = 7;
    p.panelGap = 16;
    p.margin = 8;
    return p;
}

constexpr Palette makeColorblind() {
    Palette p = kOkabeIto;
    p.name = "colorblind";
    p.summary = "Paul Tol's bright colours: safe for every colour-vision deficiency";
    // R from Tol's muted set (indigo, teal): apart from the bright ones in every deficiency.
    p.compute = {{{rgb(0x4477AA), rgb(0xCCBB44), rgb(0x228833), rgb(0x332288)},
                  {rgb(0xAA3377), rgb(0xEE6677), rgb(0x66CCEE), rgb(0x44AA99)}}};
    p.gradSync = rgb(0x444444);
    p.optimizer = rgb(0xBBBBBB);
    p.activation = rgb(0x4477AA, 140);
    p.gradient = rgb(0xCCBB44, 170);
    return p;
}

constexpr Palette makeGreyscale() {
    Palette p = kOkabeIto;
    p.name = "greyscale";
    p.summary = "greys with black outlines: black-and-white print";
    p.compute = {{{rgb(0xDDDDDD), rgb(0x8C8C8C), rgb(0x4A4A4A), rgb(0xB0B0B0)},
                  {rgb(0xBDBDBD), rgb(0x6E6E6E), rgb(0x2E2E2E), rgb(0x969696)}}};
    p.gradSync = rgb(0x111111);
    p.optimizer = rgb(0xA8A8A8);
    p.activation = rgb(0x8C8C8C, 200);
    p.gradient = rgb(0x4A4A4A, 200);
    p.idle = rgb(0xFFFFFF);
    p.opStroke = rgb(0x000000);
    p.opStrokeWidth = 0.4;
    p.chunkLighten = 0.45;
    return p;
}

constexpr std::array<Palette, 4> kPalettes = {kOkabeIto, makeSlides(), makeColorblind(), makeGreyscale()};

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    });
}

} // namespace

std::span<const Palette> palettes() {
    return kPalettes;
}

const Palette& findPalette(std::string_view name) {
    std::string valid;
    for (const Palette& p : kPalettes) {
        if (equalsIgnoreCase(p.name, name)) return p;
        valid += (valid.empty() ? "" : ", ") + std::string(p.name);
    }
    throw ValidationError("chart.palette", "palette",
                          "unknown chart style '" + std::string(name) + "'; valid styles: " + valid);
}

Color mixColor(Color a, Color b, double t) {
    t = std::clamp(t, 0.0, 1.0);
    auto channel = [t](std::uint8_t x, std::uint8_t y) {
        return std::uint8_t(std::lround(double(x) + (double(y) - double(x)) * t));
    };
    return {channel(a.r, b.r), channel(a.g, b.g), channel(a.b, b.b), a.a};
}

Color opColor(const Palette& palette, OpKind kind, int pipe, int chunk, int chunks) {
    if (kind == OpKind::GradSync) return palette.gradSync;
    if (kind == OpKind::Optimizer) return palette.optimizer;
    const int kindIndex = kind == OpKind::F ? 0 : kind == OpKind::B ? 1 : kind == OpKind::W ? 2 : 3;
    const Color base = palette.compute[pipe > 0 ? 1 : 0][kindIndex];
    if (chunks <= 1 || chunk <= 0) return base;
    const double t = palette.chunkLighten * double(std::min(chunk, chunks - 1)) / double(chunks - 1);
    return mixColor(base, Color{255, 255, 255, 255}, t);
}

Color commColor(const Palette& palette, CommKind kind) {
    switch (kind) {
    case CommKind::Gradient:
        return palette.gradient;
    case CommKind::Collective:
        return Color{palette.gradSync.r, palette.gradSync.g, palette.gradSync.b, 200};
    default:
        return palette.activation;
    }
}

Color labelColorOn(const Palette& palette, Color fill) {
    // Perceived brightness (Rec. 709 weights on the sRGB values): light text below mid-grey.
    const double luma = 0.2126 * fill.r + 0.7152 * fill.g + 0.0722 * fill.b;
    return luma < 140 ? palette.lightLabel : palette.darkLabel;
}

} // namespace stagecraft
