#pragma once
// Paints a core Scene (points, drawn rects -> lines -> texts) with QPainter. The caller maps
// scene points to device units with the painter's transform; nothing here knows about screens,
// pages or pixels, which is what keeps the window and every export identical.

#include "layout/scene.h"

#include <QColor>
#include <QFont>
#include <QRectF>
#include <string>

class QPainter;

namespace stagecraft::render {

QColor sceneColor(const Color& color);

/// A QFont for a scene's CSS-style family list ("Helvetica, Arial, sans-serif"): the families
/// in order, with the generic family as style hint.
QFont sceneFont(const std::string& fontFamily);

struct PaintOptions {
    /// Screens: rects on whole device pixels, drawn without antialiasing (several times faster
    /// for the thousands of bars of a big chart), a thin stroke (up to 2.5 px) as a one-pixel
    /// border inside the pixels its edges fall in, so touching bars share one separator. Only
    /// under a painter transform that scales and translates; exports keep exact geometry.
    bool snapRectsToPixels = false;
};

/// Draw `scene` in scene points. When `visible` is given (scene points), items entirely outside
/// it are skipped, so painting a zoomed-in view costs what is on screen.
void paintScene(QPainter& painter, const Scene& scene, const QRectF* visible = nullptr,
                const PaintOptions& options = {});

/// Draw one text item (baseline at `y`, anchored start/middle/end) in scene points.
void paintSceneText(QPainter& painter, const SceneText& text, const QFont& font);

} // namespace stagecraft::render
