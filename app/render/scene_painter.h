#pragma once
// Paints a core Scene (points, drawn rects -> lines -> texts) with QPainter. The caller maps
// scene points to device units with the painter's transform; nothing here knows about screens,
// pages or pixels, which is what keeps the window and every export identical.

#include "layout/scene.h"

#include <QColor>
#include <QRectF>
#include <string>

class QPainter;

namespace stagecraft::render {

/// "#rrggbb", "#rrggbbaa", a CSS/SVG colour name, or "none"/"" (transparent).
QColor sceneColor(const std::string& css);

/// Draw `scene` in scene points. When `visible` is given (scene points), items entirely outside
/// it are skipped, so painting a zoomed-in view costs what is on screen.
void paintScene(QPainter& painter, const Scene& scene, const QRectF* visible = nullptr);

/// Draw one text item (baseline at `y`, anchored start/middle/end) in scene points.
void paintSceneText(QPainter& painter, const SceneText& text, const std::string& fontFamily);

} // namespace stagecraft::render
