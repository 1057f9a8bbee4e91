#pragma once
// Chart styles: the colours and sizes of every chart Stagecraft draws, in one table. A style is
// looked up by name ("paper", "slides", "colorblind", "greyscale"); charts look the same in every
// renderer because they all read these values through the Scene.

#include "ir/op.h"
#include "layout/scene.h"
#include "sim/timeline.h"

#include <array>
#include <span>
#include <string_view>

namespace stagecraft {

struct Palette {
    std::string_view name;
    std::string_view summary;
    /// Bar colours of chunk 0 by [pipe][F, B, W, R]. Pipe 1 (the second pipe of bidirectional
    /// schedules) uses its own hue family so both pipes read apart at a glance. A recompute (R)
    /// has its own colour: it runs the forward's work, but its memory and place are its own.
    std::array<std::array<Color, 4>, 2> compute;
    Color gradSync;
    Color optimizer;
    Color activation; ///< comm lane: activation transfers
    Color gradient;   ///< comm lane: gradient transfers
    Color idle;       ///< device rows behind the bars: bubbles show in this colour
    Color background;
    Color text;       ///< titles, row labels, axis, legend
    Color mutedText;  ///< subtitles
    Color darkLabel;  ///< label colour on light bars
    Color lightLabel; ///< label colour on dark bars
    Color grid;       ///< axis line and ticks
    Color opStroke;
    double opStrokeWidth;
    /// Chunk k of n is the chunk-0 colour moved this far towards white times k/(n-1): later
    /// chunks are lighter, as the interleaved and V-schedule papers draw them.
    double chunkLighten;
    double fontSize;  ///< row labels, axis, legend
    double labelSize; ///< labels inside bars
    double titleSize;
    double rowHeight;
    double rowGap;
    double commHeight; ///< height of the optional comm lane under each device row
    double panelGap;
    double margin;
    std::string_view fontFamily;
};

/// Every built-in style, in the order tools list them.
std::span<const Palette> palettes();

/// Case-insensitive lookup; an unknown name throws ValidationError "chart.palette" listing the
/// valid names.
const Palette& findPalette(std::string_view name);

/// Fill of a compute op: kind colour of its pipe, shaded for chunk `chunk` of `chunks` (chunks of
/// one pipe on one device). GradSync and Optimizer are not shaded.
Color opColor(const Palette& palette, OpKind kind, int pipe, int chunk, int chunks);

/// Fill of a communication event.
Color commColor(const Palette& palette, CommKind kind);

/// The palette's dark or light label colour, whichever reads better on `fill`.
Color labelColorOn(const Palette& palette, Color fill);

/// `a` moved towards `b` by t in [0, 1] (per channel, alpha from `a`).
Color mixColor(Color a, Color b, double t);

} // namespace stagecraft
