#pragma once
// The original of a schedule designed by hand, drawn faintly behind the edited rows: where each
// op was before the edits. Built per frame from the windowed rows of the original's panel (what
// the window shows of it, folded like any bar), so it costs what is on screen.

#include "layout/chart_frame.h"
#include "layout/chart_rows.h"
#include "layout/scene.h"

#include <cstddef>

namespace stagecraft::gui {

/// Inserts into `plot` (a frame's visible bars, as ChartRows::appendVisible emitted them) the
/// visible bars of panel `original` moved onto the rows of panel `edited` and washed out, after
/// the rows' idle backgrounds and before every bar, so the edited bars cover them where nothing
/// moved. Does nothing when the two panels have different rows. Returns the ghost bars drawn.
std::size_t insertGhost(Scene& plot, const ChartRows& rows, const ChartFrame& frame,
                        const ChartWindow& window, int original, int edited);

} // namespace stagecraft::gui
