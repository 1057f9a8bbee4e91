#pragma once
// What the window shows while its files are read on the worker thread (source_loader.h): their
// names and a progress bar, from the first frame on; once part of a trace is drawn, one line of
// progress above it.

#include "view/source_loader.h"

#include <cstddef>
#include <imgui.h>
#include <string>
#include <vector>

namespace stagecraft::view {

/// Draws the files being read and the share read so far into a child of `size`.
void drawLoadingPanel(const SourceLoader& loader, const std::vector<std::string>& files, ImVec2 size);

/// Draws one line above a chart of the part read so far (`events` drawn): the share read as a
/// progress bar `width` wide. Returns the height it took.
float drawLoadingLine(const SourceLoader& loader, std::size_t events, float width);

} // namespace stagecraft::view
