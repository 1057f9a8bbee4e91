#pragma once
// PDF and PNG charts for stagecraft-cli. They are drawn by the desktop application's QPainter
// renderer (app/render), the same code that paints the screen, so the CLI has them only in builds
// with Qt; without it, asking for them is refused with a message that says so.

#include "layout/scene.h"

#include <string>

namespace stagecraft::cli {

/// True when this build links the Qt renderer.
bool rasterExportAvailable();

/// Writes `scene` to `path` (.pdf, or .png at `dpi`) atomically, on Qt's offscreen platform (no
/// display needed). Throws stagecraft::Error naming the path and the reason.
void writeRasterChart(const Scene& scene, const std::string& path, double dpi);

} // namespace stagecraft::cli
