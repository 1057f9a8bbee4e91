#pragma once
// What the window shows while its files are read on the worker thread (source_loader.h): their
// names and a progress bar, from the first frame on.

#include "view/source_loader.h"

#include <imgui.h>
#include <string>
#include <vector>

namespace stagecraft::view {

/// Draws the files being read and the share read so far into a child of `size`.
void drawLoadingPanel(const SourceLoader& loader, const std::vector<std::string>& files, ImVec2 size);

} // namespace stagecraft::view
