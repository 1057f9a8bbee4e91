#pragma once
// Scene: a chart as plain shapes, the one thing every renderer draws (SVG and TikZ writers in
// core, QPainter for screen/PDF/PNG, ImGui in the viewer). Units are points (1/72 inch), origin
// at the top left, y down. Draw order: all rects, then all lines, then all texts, each in
// vector order; layout code relies on that (labels over bars, axis over backgrounds).

#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft {

struct Color {
    std::uint8_t r = 0, g = 0, b = 0, a = 255; ///< a = 0: nothing is drawn (no fill / no stroke)
    friend bool operator==(const Color&, const Color&) = default;
};

/// What a rectangle stands for, so renderers can style or hit-test it (tooltips, selection)
/// without parsing anything.
enum class RectRole : std::uint8_t {
    Background, ///< the whole chart
    Panel,      ///< decoration behind one panel
    Idle,       ///< a device row from 0 to the panel's makespan (bubbles show through)
    Op,         ///< one compute event (F, B, W, R, GradSync, Optimizer)
    Comm,       ///< one communication event (showComm)
    Legend,     ///< a legend swatch
};

struct SceneRect {
    double x = 0, y = 0, w = 0, h = 0;
    Color fill;
    Color stroke{0, 0, 0, 0};
    double strokeWidth = 0;
    RectRole role = RectRole::Background;
    int event = -1; ///< index into the panel's Timeline::events; -1 for decoration
    int panel = -1; ///< index of the panel; -1 outside panels
    /// Short class of what the rect shows: "F", "B", "W", "R", "GradSync", "Optimizer",
    /// "activation", "gradient", "collective"; empty for decoration.
    std::string kind;
    std::string tooltip; ///< one line for hover/tooltips (UTF-8); may be empty
};

enum class TextAnchor : std::uint8_t { Start, Middle, End };

struct SceneText {
    double x = 0, y = 0; ///< y is the baseline
    std::string text;    ///< UTF-8
    double size = 8;     ///< font size in pt
    Color color;
    TextAnchor anchor = TextAnchor::Start;
    bool bold = false;
};

struct SceneLine {
    double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
    Color color;
    double width = 0.5;
    bool dashed = false;
};

struct Scene {
    double width = 0;
    double height = 0;
    /// CSS-style family list, most wanted first ("Helvetica, Arial, sans-serif").
    std::string fontFamily;
    std::vector<SceneRect> rects;
    std::vector<SceneLine> lines;
    std::vector<SceneText> texts;
};

} // namespace stagecraft
