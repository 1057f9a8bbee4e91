#pragma once
// PDF and PNG charts for programs that write files without a window (stagecraft-cli, `stagecraft
// --export`): core's RasterChartWriter (eval/export_files.h) over this renderer.

#include "layout/scene.h"

#include <string>

namespace stagecraft::render {

/// Writes `scene` to `path` (.pdf, or .png at `dpi`) atomically. Starts a QGuiApplication on the
/// offscreen platform when the program has none (fonts and painting need one, a display not).
/// Throws stagecraft::Error naming the path and the reason.
void writeRasterChart(const Scene& scene, const std::string& path, double dpi);

} // namespace stagecraft::render
