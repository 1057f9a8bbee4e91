#pragma once
// Core's Scene (rects, lines, texts in points) onto an ImGui draw list: the viewer's only
// renderer, as render/scene_painter is the Qt one. Shapes outside the clip rectangle are skipped,
// rect edges are snapped to whole pixels so a million-op chart stays crisp at every zoom.

#include "layout/scene.h"

#include <imgui.h>

namespace stagecraft::view {

/// Points to screen pixels: screen = origin + point * scale.
struct SceneTransform {
    ImVec2 origin{0, 0};
    float scale = 1;
    ImVec2 toScreen(double x, double y) const {
        return {origin.x + float(x) * scale, origin.y + float(y) * scale};
    }
};

ImU32 toImColor(const Color& c);

/// Draws rects, then lines, then texts (the Scene's order). `font` draws the texts at their
/// point size times the scale.
void drawScene(ImDrawList* list, const Scene& scene, const SceneTransform& transform, ImFont* font,
               const ImVec4& clip);

/// One text of a Scene (baseline and anchor as the Scene places it).
void drawSceneText(ImDrawList* list, const SceneText& text, const SceneTransform& transform, ImFont* font);

} // namespace stagecraft::view
